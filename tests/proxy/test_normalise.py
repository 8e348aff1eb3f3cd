"""The request normaliser: properties (idempotent, keys and shape kept, non-JSON and
untouched bodies byte-identical) and the profiles' rules on the lines they pin."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core.errors import ConfigurationError
from harness.proxy import IGNORED, PROFILES, RequestNormaliser, TextRule, normaliser_for

# Small alphabets (with the characters the rules look for): a strategy over every
# Unicode code point costs seconds to build, and the rules behave the same.
TEXT = st.text(alphabet=" \n:<>/.-_'0123456789abcdefgtwCDIWéü", max_size=40)
KEYS = st.text(alphabet="abcdefgi_", max_size=8)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=8,
)
# Text that may hold the lines the profiles pin.
LINES = st.lists(
    st.sampled_from(
        [
            "Today's date: 2026-12-03",
            "Today's date is 2026-01-31.",
            "Working directory: /tmp/pytest-of-me/pytest-9/test_x0",
            "<cwd>/home/me/repo</cwd>",
            "<current_date>2026-12-03</current_date>",
            "Chunk ID: 7f3a9c",
            "Wall time: 0.0521 seconds",
            "plain words",
            "",
        ]
    ),
    max_size=6,
).map("\n".join)
NORMALISERS = [normaliser_for([name]) for name in sorted(PROFILES)] + [
    normaliser_for(["codex"], ["metadata"], [(r"session-\d+", "session-<n>")])
]


def _keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_keys(v) for v in value]
    return None


@settings(max_examples=40)
@given(normaliser=st.sampled_from(NORMALISERS), value=JSON, text=LINES)
def test_normalising_twice_changes_nothing_and_keeps_the_shape(
    normaliser: RequestNormaliser, value: Any, text: str
) -> None:
    body = json.dumps({"input": [{"id": "x", "content": text}], "extra": value}).encode()
    once = normaliser.body(body)
    assert normaliser.body(once) == once
    assert _keys(json.loads(once)) == _keys(json.loads(body))


@settings(max_examples=40)
@given(value=JSON)
def test_a_body_with_nothing_to_pin_is_passed_byte_for_byte(value: Any) -> None:
    normaliser = normaliser_for([], (), [(r"<never>", "x")])
    body = json.dumps({"value": value}, indent=3).encode()
    if "<never>" not in body.decode():
        assert normaliser.body(body) is body


@settings(max_examples=40)
@given(raw=st.binary(max_size=60))
def test_a_body_that_is_not_json_is_never_changed(raw: bytes) -> None:
    try:
        json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        assert normaliser_for(["codex"]).body(raw) is raw


def test_the_profiles_pin_what_changes_per_run() -> None:
    codex = normaliser_for(["codex"])
    body = {
        "prompt_cache_key": "uuid",
        "client_metadata": {"a": 1},
        "input": [
            {"id": "msg_1", "content": "<cwd>/w</cwd>\nChunk ID: ab\nWall time: 1.5 seconds"}
        ],
    }
    assert codex.value(body) == {
        "prompt_cache_key": IGNORED,
        "client_metadata": IGNORED,
        "input": [
            {
                "id": IGNORED,
                "content": "<cwd><workdir></cwd>\nChunk ID: <chunk-id>\n"
                "Wall time: <wall-time> seconds",
            }
        ],
    }
    claude = normaliser_for(["claude-code"])
    system = "Working directory: /tmp/a\nToday's date: 2026-12-03\nkeep"
    assert claude.value({"metadata": {"user_id": "u1"}, "system": system}) == {
        "metadata": {"user_id": IGNORED},
        "system": "Working directory: <workdir>\nToday's date: <date>\nkeep",
    }


def test_a_bad_rule_or_profile_is_one_clear_error() -> None:
    with pytest.raises(ConfigurationError, match="not a valid regular expression"):
        RequestNormaliser(rules=[TextRule("(", "x")])
    with pytest.raises(ConfigurationError, match="known: claude-code, codex"):
        normaliser_for(["codexx"])
