"""Event streams parse alike however they are cut, and streamed answers reassemble exactly.

The real streams are the corpus's (``shared/corpus/<provider>/*.sse``, recorded
from api.openai.com and api.anthropic.com); the properties hold for any event
sequence hypothesis draws, written with any mix of line ends.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.traffic.sse import SseEvent, SseParser, is_event_stream, parse_sse
from harness.wires.anthropic.traffic import read_messages_stream
from harness.wires.openai.traffic import read_chat_stream
from harness.wires.openai_responses.traffic import read_responses_stream

ROOT = Path(__file__).resolve().parents[2]
CORPUS = next(
    (
        p
        for p in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus")
        if p.is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
)
READERS = {
    "openai": read_chat_stream,
    "anthropic": read_messages_stream,
    "openai-responses": read_responses_stream,
}
STREAMS = sorted(CORPUS.glob("*/*.sse")) if CORPUS.is_dir() else []
MISSING = f"needs the shared corpus of recorded streams at {CORPUS}"

_field_text = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=20
)
_events = st.lists(
    st.tuples(
        st.none() | _field_text.filter(lambda s: s.strip() == s and s != ""),
        st.lists(_field_text, min_size=1, max_size=3),
    ),
    max_size=6,
)


def _encode(events: list[tuple[str | None, list[str]]], ends: list[str]) -> bytes:
    lines: list[str] = []
    for name, data in events:
        if name is not None:
            lines.append(f"event: {name}")
        lines.extend(f"data: {piece}" for piece in data)
        lines.append("")
    out, previous = [], ""
    for i, line in enumerate(lines):
        end = ends[i % len(ends)]
        if previous == "\r" and not line and end == "\n":
            end = "\r\n"  # "\r" then an empty "\n" line would read as one "\r\n" end
        out.append(line + end)
        previous = end
    return "".join(out).encode("utf-8")


def _cuts(data: bytes, sizes: list[int]) -> list[bytes]:
    pieces, position = [], 0
    for size in sizes:
        pieces.append(data[position : position + size])
        position += size
    return [*pieces, data[position:]]


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(
    events=_events,
    ends=st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=3),
    sizes=st.lists(st.integers(min_value=0, max_value=7), max_size=40),
)
def test_events_survive_any_line_ends_and_any_chunking(
    events: list[tuple[str | None, list[str]]], ends: list[str], sizes: list[int]
) -> None:
    body = _encode(events, ends)
    parser = SseParser()
    parsed: list[SseEvent] = []
    for piece in _cuts(body, sizes):
        parsed += parser.feed(piece)
    parsed += parser.close()
    assert parsed == [SseEvent(name, "\n".join(data)) for name, data in events]


def test_comments_ids_a_bom_and_an_unclosed_last_event() -> None:
    body = b"\xef\xbb\xbf: keep-alive\nid: 7\nretry: 10\nevent: a\ndata:x\n\ndata: y\ndata"
    assert parse_sse(body) == [SseEvent("a", "x"), SseEvent(None, "y\n")]
    assert parse_sse(body, chunks=[1, 1, 1, 2]) == parse_sse(body)


@pytest.mark.parametrize(
    ("content_type", "body", "expected"),
    [
        ("text/event-stream; charset=utf-8", b"{}", True),
        (None, b"  event: x\ndata: {}\n\n", True),
        (None, b'data: {"a": 1}\n\n', True),
        ("application/json", b'{"data": 1}', False),
        (None, b"", False),
    ],
    ids=["header", "sniffed-event", "sniffed-data", "json", "empty"],
)
def test_a_stream_is_known_by_its_header_or_first_line(
    content_type: str | None, body: bytes, expected: bool
) -> None:
    assert is_event_stream(content_type, body) is expected


@pytest.mark.deep
@pytest.mark.skipif(not STREAMS, reason=MISSING)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_recorded_stream_reads_the_same_in_any_chunks(data: st.DataObject) -> None:
    path = data.draw(st.sampled_from(STREAMS), label="stream")
    body = path.read_bytes()
    sizes = data.draw(st.lists(st.integers(min_value=1, max_value=max(1, len(body) // 5))))
    read = READERS[path.parent.name]
    whole = read(200, parse_sse(body))
    assert read(200, parse_sse(body, chunks=sizes)) == whole
    assert not whole.failed


def _text_cuts(text: str, sizes: list[int]) -> list[str]:
    pieces, position = [], 0
    for size in sizes:
        pieces.append(text[position : position + size])
        position += size
    return [*pieces, text[position:]]


def _chat_chunks(arguments: str, sizes: list[int]) -> bytes:
    """A Chat Completions stream that sends ``arguments`` cut into ``sizes`` pieces."""
    pieces = [p for p in _text_cuts(arguments, sizes) if p]
    chunks = [
        {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1",
         "function": {"name": "read", "arguments": ""}}]}}]},
        *(
            {"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0,
             "function": {"arguments": p}}]}}]}
            for p in pieces
        ),
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]  # fmt: skip
    lines = [f"data: {json.dumps(c)}\n\n" for c in chunks]
    return ("".join(lines) + "data: [DONE]\n\n").encode()


@settings(max_examples=50)
@given(
    arguments=st.dictionaries(st.text(max_size=5), st.text(max_size=8), max_size=3).map(json.dumps),
    sizes=st.lists(st.integers(min_value=1, max_value=6), max_size=12),
)
def test_tool_arguments_split_across_chunks_join_back(arguments: str, sizes: list[int]) -> None:
    response = read_chat_stream(200, parse_sse(_chat_chunks(arguments, sizes)))
    assert [(a.call_id, a.name, a.arguments) for a in response.asks] == [
        ("call_1", "read", arguments)
    ]
    assert response.stop_reason == "tool_calls"


@settings(max_examples=50)
@given(
    partial=st.text(max_size=30),
    sizes=st.lists(st.integers(min_value=1, max_value=5), max_size=10),
)
def test_anthropic_input_json_fragments_join_back(partial: str, sizes: list[int]) -> None:
    cuts = _text_cuts(partial, sizes)
    events = [
        ("message_start", {"type": "message_start", "message": {"model": "m", "usage": {
            "input_tokens": 5, "cache_read_input_tokens": 2, "output_tokens": 1}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}}),
        *(("content_block_delta", {"type": "content_block_delta", "index": 0,
           "delta": {"type": "input_json_delta", "partial_json": c}}) for c in cuts),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 9}}),
    ]  # fmt: skip
    body = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events)
    response = read_messages_stream(200, parse_sse(body))
    assert [a.arguments for a in response.asks] == [partial or "{}"]
    assert (response.usage.input, response.usage.cached_input, response.usage.output) == (7, 2, 9)
