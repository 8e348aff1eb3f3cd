"""Bounds of the Feishu endpoint as units: JSON depth, signed-event age, persisted event ids."""

from __future__ import annotations

import contextlib
import json
import logging
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.integrations.feishu import (
    MAX_EVENT_AGE_SECONDS,
    MAX_JSON_DEPTH,
    EventDeduplicator,
    JsonTooDeep,
    WebhookRejected,
    feishu_signature,
    json_depth,
    loads_bounded,
    message_event,
    parse_message_event,
    verify_webhook,
)

pytest.importorskip("Crypto", reason="the feishu extra is not installed")

from tests.integrations._feishu_crypto import encrypt

TOKEN = "tok-limits"
KEY = "key-limits"


def _depth(value: Any) -> int:
    """The reference: nesting depth of a parsed document."""
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab[]{}"\\ \n'),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=30,
)


@pytest.mark.deep
@given(JSON_VALUES)
def test_json_depth_agrees_with_the_parsed_document(value: Any) -> None:
    raw = json.dumps(value).encode()
    assert json_depth(raw) == _depth(value)
    assert loads_bounded(raw) == value


@given(st.binary(max_size=300) | st.text(alphabet='[]{}"\\,:1 ', max_size=300).map(str.encode))
def test_loads_bounded_only_ever_raises_value_errors(raw: bytes) -> None:
    with contextlib.suppress(ValueError):
        loads_bounded(raw)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 100_000])
def test_the_depth_limit_is_exact_and_deep_input_never_recurses(depth: int) -> None:
    raw = b"[" * depth + b"]" * depth
    if depth <= MAX_JSON_DEPTH:
        assert _depth(loads_bounded(raw)) == depth
    else:
        with pytest.raises(JsonTooDeep):
            loads_bounded(raw)


def test_a_deep_message_content_is_not_a_text_message() -> None:
    event = message_event("hi", token=TOKEN)
    event["event"]["message"]["content"] = "[" * 100_000
    parsed = parse_message_event(event)
    assert parsed is not None and parsed.text is None


def _encrypted(document: dict[str, Any]) -> bytes:
    return json.dumps({"encrypt": encrypt(json.dumps(document).encode(), KEY)}).encode()


def _headers(body: bytes, timestamp: str) -> dict[str, str]:
    return {
        "X-Lark-Request-Timestamp": timestamp,
        "X-Lark-Request-Nonce": "n",
        "X-Lark-Signature": feishu_signature(timestamp, "n", KEY, body),
    }


@pytest.mark.parametrize(
    ("offset", "accepted"),
    [
        (0, True),
        (MAX_EVENT_AGE_SECONDS, True),
        (MAX_EVENT_AGE_SECONDS + 1, False),
        (-MAX_EVENT_AGE_SECONDS, True),
        (-MAX_EVENT_AGE_SECONDS - 1, False),
    ],
    ids=["now", "at-limit", "stale", "future-at-limit", "future"],
)
def test_signed_events_are_accepted_only_within_five_minutes(offset: int, accepted: bool) -> None:
    now = 1_800_000_000.0
    body = _encrypted(message_event("hi", token=TOKEN))
    headers = _headers(body, str(int(now) - offset))
    if accepted:
        assert verify_webhook(body, headers, verification_token=TOKEN, encrypt_key=KEY, now=now)
    else:
        with pytest.raises(WebhookRejected, match="beyond the 300 s allowed") as caught:
            verify_webhook(body, headers, verification_token=TOKEN, encrypt_key=KEY, now=now)
        assert caught.value.status == 401


def test_a_timestamp_that_is_not_a_number_is_refused() -> None:
    body = _encrypted(message_event("hi", token=TOKEN))
    with pytest.raises(WebhookRejected, match="not a Unix time"):
        verify_webhook(body, _headers(body, "soon"), verification_token=TOKEN, encrypt_key=KEY)


def test_deep_json_inside_the_encrypted_envelope_is_400() -> None:
    inner = b"[" * 1000 + b"]" * 1000
    body = json.dumps({"encrypt": encrypt(inner, KEY)}).encode()
    headers = _headers(body, str(int(time.time())))
    with pytest.raises(WebhookRejected) as caught:
        verify_webhook(body, headers, verification_token=TOKEN, encrypt_key=KEY)
    assert caught.value.status == 400


def test_seen_event_ids_survive_a_restart_until_their_ttl(tmp_path: Path) -> None:
    path = tmp_path / "feishu" / "seen-events.json"
    now = [1000.0]
    first = EventDeduplicator(ttl_seconds=60, clock=lambda: now[0], path=path)
    assert first.first_time("ev_1")
    stored = json.loads(path.read_text())
    assert stored == {"schema_version": 1, "events": {"ev_1": 1060.0}}
    again = EventDeduplicator(ttl_seconds=60, clock=lambda: now[0], path=path)
    assert not again.first_time("ev_1")
    now[0] = 1061.0
    later = EventDeduplicator(ttl_seconds=60, clock=lambda: now[0], path=path)
    assert later.first_time("ev_1")
    assert sorted(p.name for p in path.parent.iterdir()) == ["seen-events.json"]  # no temp left


def test_the_persisted_memory_stays_bounded(tmp_path: Path) -> None:
    path = tmp_path / "seen.json"
    now = [0.0]
    seen = EventDeduplicator(ttl_seconds=100, max_size=3, clock=lambda: now[0], path=path)
    for number in range(10):
        now[0] = float(number)
        assert seen.first_time(f"ev_{number}")
    assert list(json.loads(path.read_text())["events"]) == ["ev_7", "ev_8", "ev_9"]
    reloaded = EventDeduplicator(ttl_seconds=100, max_size=2, clock=lambda: now[0], path=path)
    assert len(reloaded) == 2 and not reloaded.first_time("ev_9") and reloaded.first_time("ev_7")


@pytest.mark.parametrize(
    "content",
    ["{not json", '{"schema_version": 9, "events": {}}', '{"schema_version": 1, "events": []}'],
    ids=["corrupt", "other-version", "invalid"],
)
def test_an_unreadable_memory_is_logged_and_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, content: str
) -> None:
    path = tmp_path / "seen.json"
    path.write_text(content)
    with caplog.at_level(logging.WARNING, logger="harness.feishu"):
        seen = EventDeduplicator(path=path)
    assert "starting with no remembered event ids" in caplog.text
    assert seen.first_time("ev_1")
    assert list(json.loads(path.read_text())["events"]) == ["ev_1"]
