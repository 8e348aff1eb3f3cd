"""Credentials beyond the auth headers never reach a cassette, a log or test output.

Fake keys travel in headers, the query string, credential-named body fields
(request and response), prompts, gzip bodies and re-saved foreign cassettes;
the file on disk, the captured logs and the captured output must hold none.
"""

from __future__ import annotations

import gzip
import json
import logging
from pathlib import Path
from typing import Any

import httpx2
import openai
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from harness.core import CassetteError
from harness.recording import scan_cassette_file, use_cassette
from harness.recording._logfilter import redact_log_text
from harness.recording._redact import (
    FIELD_WORDS,
    REDACTED,
    is_credential_field,
    is_credential_param,
    redact_json,
    redact_uri,
)

from .helpers import OPENAI_KEY
from .wire import WireServer, completion, wire_server

QUERY_KEY = "AIzaQueryKey7xQ2mN9pL4vR8tK3"
FIELD_KEY = "fieldSecret9Qm2Lp7Xv4Rt8Kn3Wz"
HEADER_KEY = "hdr-key-3Fq9Lm2Xp7Vt4Rk8"
RESPONSE_KEY = "respSecret4Tk9Qm2Lp7Xv8Rn3"
SECRETS = (OPENAI_KEY, QUERY_KEY, FIELD_KEY, HEADER_KEY, RESPONSE_KEY, "org-secret-9", "abc123")
MESSAGES = [{"role": "user", "content": "hello"}]


def _client(server: WireServer, encoding: str = "gzip") -> openai.OpenAI:
    return openai.OpenAI(
        api_key=OPENAI_KEY,
        base_url=server.base(encoding) + "/v1",
        max_retries=0,
        default_headers={"x-api-key": HEADER_KEY},
        default_query={"key": QUERY_KEY, "api-version": "2024-10-01"},
        http_client=httpx2.Client(),
    )


def _ask(client: openai.OpenAI) -> Any:
    extra = {"api_key": FIELD_KEY, "auth": {"access_token": FIELD_KEY}, "max_tokens": 9}
    return client.chat.completions.create(
        model="gpt-enc",
        messages=MESSAGES,  # type: ignore[arg-type]
        extra_body=extra,
    )


def _leaks(text: str) -> list[str]:
    return [secret for secret in SECRETS if secret in text]


def test_nothing_reaches_the_file_the_logs_or_the_output(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "scrubbed.yaml"
    with wire_server() as server:
        server.extra_headers = {
            "set-cookie": "session=abc123; Path=/",
            "openai-organization": "org-secret-9",
        }
        server.answer = {**completion(), "session": {"client_secret": RESPONSE_KEY}}
        with _client(server) as client, use_cassette(path, record_mode="once"):
            _ask(client)
        assert QUERY_KEY in server.requests[0][0]  # the live request did carry them
        server.stop()
        # Replay with the live values: the redacted recording still matches.
        with _client(server) as client, use_cassette(path) as cassette:
            replayed = _ask(client)
    assert cassette.report.played == 1
    assert replayed.model_extra and replayed.model_extra["session"]["client_secret"] == REDACTED
    text = path.read_text(encoding="utf-8")
    assert _leaks(text) == []
    assert "?api-version=2024-10-01&key=REDACTED" in text  # in the uri and harness_match
    stored = yaml.safe_load(text)["interactions"][0]
    assert json.loads(stored["request"]["body"])["max_tokens"] == 9  # usage-like: kept
    assert scan_cassette_file(path) == []
    captured = capsys.readouterr()
    assert _leaks(caplog.text + captured.out + captured.err) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scrubbed.yaml"]


def test_a_warning_logged_during_a_cassette_is_redacted(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "empty.yaml"
    path.write_text("version: 1\ninteractions: []\n", encoding="utf-8")
    with use_cassette(path, record_mode="once"):
        logging.getLogger("httpx2").warning(
            "retrying https://x.test/v1?key=%s headers={'authorization': 'Bearer %s'}",
            QUERY_KEY,
            OPENAI_KEY,
        )
        logging.getLogger("vcr.stubs").info("%s not in cassette", f"https://x?token={QUERY_KEY}")
    assert _leaks(caplog.text) == []
    assert "retrying https://x.test/v1?key=REDACTED" in caplog.text
    assert logging.getLogger("httpx2").filters == []  # removed afterwards
    assert logging.getLogger("vcr").level == logging.NOTSET


def test_a_logger_made_after_an_earlier_cassette_is_redacted_too(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    path = tmp_path / "empty.yaml"
    path.write_text("version: 1\ninteractions: []\n", encoding="utf-8")
    with use_cassette(path, record_mode="once"):
        pass  # the family loggers are listed (and remembered) here
    later = logging.getLogger(f"httpx2.made_later_{tmp_path.name}")
    with use_cassette(path, record_mode="once"):
        later.warning("retrying https://x.test/v1?key=%s", QUERY_KEY)
    assert _leaks(caplog.text) == []
    assert "retrying https://x.test/v1?key=REDACTED" in caplog.text
    assert later.filters == []


def test_a_key_in_a_prompt_is_refused_even_inside_gzip(tmp_path: Path) -> None:
    path = tmp_path / "gz.yaml"
    leaked = gzip.compress(f"api_key={QUERY_KEY}".encode())
    request = {"method": "POST", "uri": "https://h/v1", "body": None, "headers": {}}
    response = {"status": {"code": 200, "message": "OK"}, "headers": {}}
    response["body"] = {"string": leaked}
    document = {"version": 1, "interactions": [{"request": request, "response": response}]}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    findings = scan_cassette_file(path)
    kinds = {f.kind for f in findings}
    assert "high-entropy value after a credential name" in kinds
    assert all(QUERY_KEY not in str(f) for f in findings)


def test_new_episodes_trims_the_loaded_interactions_too(tmp_path: Path) -> None:
    path = tmp_path / "foreign.yaml"
    body = completion("loaded answer")
    foreign = {
        "request": {
            "method": "POST",
            "uri": "http://127.0.0.1:9/identity/v1/chat/completions?key=" + QUERY_KEY,
            "body": json.dumps({"model": "m", "messages": [], "api_key": FIELD_KEY}),
            "headers": {"Authorization": [f"Bearer {OPENAI_KEY}"], "Cookie": ["a=abc123"]},
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {
                "Set-Cookie": ["session=abc123"],
                "openai-organization": ["org-secret-9"],
                "Content-Encoding": ["gzip"],
                "Content-Type": ["application/json"],
            },
            "body": {"string": gzip.compress(json.dumps(body).encode())},
        },
    }
    path.write_text(yaml.safe_dump({"version": 1, "interactions": [foreign]}), encoding="utf-8")
    with (
        wire_server() as server,
        _client(server, "identity") as client,
        use_cassette(path, record_mode="new_episodes"),
    ):
        _ask(client)
    text = path.read_text(encoding="utf-8")
    assert _leaks(text) == []
    assert "set-cookie" not in text.lower() and "authorization" not in text.lower()
    stored = yaml.safe_load(text)["interactions"]
    assert len(stored) == 2
    assert "loaded answer" in stored[0]["response"]["body"]["string"]  # decoded, readable


def test_a_prompt_quoting_a_key_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "refused.yaml"
    with (
        wire_server() as server,
        _client(server) as client,
        pytest.raises(CassetteError, match="refusing to save"),
        use_cassette(path, record_mode="once"),
    ):
        client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": f"use {OPENAI_KEY}xyz"}]
        )
    assert not path.exists()


# --- the name rules ------------------------------------------------------------------

USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "max_tokens",
    "max_completion_tokens",
    "budget_tokens",
    "cache_read_input_tokens",
    "cache_creation_input_tokens",
    "cached_tokens",
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "total_tokens",
    "signature",
    "key",
    "token_count",
    "tokenizer",
)
CREDENTIALS = ("api_key", "apiKey", "x-api-key", "access_token", "refreshToken", "client_secret")
CREDENTIALS += ("password", "secret", "token", "id_token", "privateKey", "Authorization")


@pytest.mark.parametrize("name", USAGE_FIELDS)
def test_usage_and_ordinary_fields_are_not_credentials(name: str) -> None:
    assert not is_credential_field(name)
    assert redact_json({name: "some-long-value-12345"}) == {name: "some-long-value-12345"}


@pytest.mark.parametrize("name", CREDENTIALS)
def test_credential_fields_are_redacted(name: str) -> None:
    assert is_credential_field(name)
    assert redact_json({"a": [{name: "v4lue-12345"}]}) == {"a": [{name: REDACTED}]}


_WORD = st.text("abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)


@given(st.lists(_WORD, max_size=3), st.sampled_from(["_", "-", "."]))
def test_a_name_ending_in_tokens_is_never_a_credential(prefix: list[str], sep: str) -> None:
    assert not is_credential_field(sep.join([*prefix, "tokens"]))


@given(st.lists(_WORD, max_size=3), st.sampled_from(sorted(FIELD_WORDS)), st.booleans())
def test_a_name_ending_in_a_credential_word_is_one(
    prefix: list[str], word: str, camel: bool
) -> None:
    name = "".join([*prefix, word.capitalize()]) if camel and prefix else "_".join([*prefix, word])
    assert is_credential_field(name)


@pytest.mark.deep
@given(
    st.recursive(
        st.integers() | st.booleans() | st.none(),
        lambda c: st.lists(c) | st.dictionaries(_WORD, c),
        max_leaves=30,
    )
)
def test_redaction_never_touches_non_strings(value: Any) -> None:
    assert redact_json(value) == value


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        ("key", True),
        ("api-key", True),
        ("X-Amz-Signature", True),
        ("sig", True),
        ("access_token", True),
        ("beta", False),
        ("api-version", False),
        ("max_tokens", False),
    ],
)
def test_query_parameter_names(name: str, secret: bool) -> None:
    assert is_credential_param(name) is secret
    assert (REDACTED in redact_uri(f"https://h/p?{name}=v1&x=2")) is secret


def test_log_redaction_covers_urls_headers_and_keys() -> None:
    line = (
        f"POST https://h/v1?api_key={QUERY_KEY}&beta=true x-api-key: {HEADER_KEY} "
        f"{{'authorization': 'Bearer {OPENAI_KEY}'}}"
    )
    redacted = redact_log_text(line)
    assert _leaks(redacted) == []
    assert "beta=true" in redacted


@pytest.mark.parametrize(
    ("text", "flagged"),
    [
        pytest.param("?key=AIzaSyD3x9Kq7LmN2pQ8rT4vW6yZ1bC5dE7fG9h", True, id="query-key"),
        pytest.param(
            '"client_secret": "gho_16C7e42F292c6912E7710c838347Ae178B4a"', True, id="json"
        ),
        pytest.param("ACCESS_TOKEN=ya29Xb8Qm2Lp7Xv4Rt8Kn3Wz5Yq1", True, id="env-line"),
        pytest.param('"idempotency_key": "a8f5f167f44f4964e6c998dee827110c"', False, id="id-key"),
        pytest.param('"signature": "EqQBCkgIARABGAIiQL1234567890abcdefXYZ"', False, id="thinking"),
        pytest.param('"max_tokens": 123456789012345678', False, id="usage"),
        pytest.param('"token": "internationalization"', False, id="a-word"),
    ],
)
def test_high_entropy_values_after_credential_names(text: str, flagged: bool) -> None:
    from harness.recording._secrets import scan_data

    findings = scan_data(Path("x.yaml"), {"interactions": [{"request": {"body": text}}]})
    assert bool(findings) is flagged


_NAME = st.lists(
    st.sampled_from(
        [*sorted(FIELD_WORDS), "key", "api", "access", "private", "auth", "client", "tokens"]
    )
    | _WORD,
    min_size=1,
    max_size=4,
)


@given(_NAME, st.sampled_from(["_", "-", "", "camel"]))
def test_the_cheap_pre_check_never_skips_a_credential_name(parts: list[str], sep: str) -> None:
    from harness.recording._redact import may_hold_credentials

    name = "".join(p.capitalize() for p in parts) if sep == "camel" else sep.join(parts)
    if is_credential_field(name):  # the pre-check guards body-field redaction
        assert may_hold_credentials(name) and may_hold_credentials(name.encode())
