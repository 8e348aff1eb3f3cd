"""Redaction, truncation and hashing of payloads."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from harness.tracing import REDACTED, hash_text, redact, redact_text, truncate


@pytest.mark.parametrize(
    "key",
    [
        "token",
        "access_token",
        "Secret",
        "db_password",
        "PASSWD",
        "Authorization",
        "api_key",
        "OPENAI-API-KEY",
        "apikey",
        "Cookie",
        "set-cookie",
        "x-api-key",
    ],
)
def test_secret_keys_are_redacted_case_insensitively(key: str) -> None:
    assert redact({key: "value-123", "path": "notes.txt"}) == {key: REDACTED, "path": "notes.txt"}


def test_redaction_is_recursive_and_does_not_modify_the_input() -> None:
    data: dict[str, Any] = {
        "messages": [{"role": "user", "content": "hi"}, {"auth": {"api_key": "k"}}],
        "config": ({"password": "p"},),
    }
    assert redact(data) == {
        "messages": [{"role": "user", "content": "hi"}, {"auth": {"api_key": REDACTED}}],
        "config": [{"password": REDACTED}],
    }
    assert data["messages"][1]["auth"]["api_key"] == "k"


def test_counts_under_token_keys_are_kept() -> None:
    usage = {"input_tokens": 12, "output_tokens": 3, "max_tokens": 100, "cached": None}
    assert redact(usage) == usage


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("key sk-abcdefghijklmnop1234 end", f"key {REDACTED} end", id="openai"),
        pytest.param("sk-proj-AbCdEf123456789_xyz", REDACTED, id="openai-project"),
        pytest.param("use sk-ant-api03-abcdefGHIJ", f"use {REDACTED}", id="anthropic"),
        pytest.param(
            "Authorization: Bearer eyJhbGciOi.J9x", f"Authorization: Bearer {REDACTED}", id="bearer"
        ),
        pytest.param("aws AKIAIOSFODNN7EXAMPLE ok", f"aws {REDACTED} ok", id="aws"),
        pytest.param("ghp_" + "a" * 36, REDACTED, id="github"),
        pytest.param(
            "scikit sk-learn and task-12", "scikit sk-learn and task-12", id="no-false-hit"
        ),
    ],
)
def test_key_like_strings_are_scrubbed_inside_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact({"content": text}) == {"content": expected}


def test_other_objects_become_redacted_json_values() -> None:
    class Call(BaseModel):
        name: str
        api_key: str

    assert redact(Call(name="read", api_key="k")) == {"name": "read", "api_key": REDACTED}
    assert redact({"n": 1.5, "ok": True, "path": object}) == {
        "n": 1.5,
        "ok": True,
        "path": "<class 'object'>",
    }


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        pytest.param("short", "short", id="short-kept"),
        pytest.param("x" * 10, "x" * 10, id="exact-limit-kept"),
        pytest.param("x" * 15, "x" * 10 + "...[truncated 5 chars]", id="long-cut"),
        pytest.param({"a": ["y" * 12]}, {"a": ["y" * 10 + "...[truncated 2 chars]"]}, id="nested"),
        pytest.param(12345678901234, 12345678901234, id="numbers-untouched"),
    ],
)
def test_truncate(value: Any, expected: Any) -> None:
    assert truncate(value, 10) == expected


def test_hash_text_is_a_short_stable_sha256_prefix() -> None:
    assert hash_text("hello") == "2cf24dba5fb0a30e"
    assert len(hash_text("")) == 16
    assert hash_text("a") != hash_text("b")
