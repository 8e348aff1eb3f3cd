"""AWS event-stream framing: frames this test writes decode back, corrupt ones are refused.

The frames are written here from the format (prelude, headers, payload, two
CRC-32s) with ``struct`` and ``zlib``, independently of
``harness.wires.bedrock.eventstream.encode_frame``, and the two writers are
checked against each other; the recorded ConverseStream bodies of the corpus
decode with both CRCs valid.
"""

from __future__ import annotations

import struct
import uuid
import zlib
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import CassetteError
from harness.wires.bedrock.eventstream import (
    EventStreamError,
    Frame,
    HeaderValue,
    decode_frames,
    encode_frame,
)


def _crc(data: bytes) -> int:
    return zlib.crc32(data) & 0xFFFFFFFF


def _string_header(name: str, value: str) -> bytes:
    raw, text = name.encode(), value.encode()
    return bytes([len(raw)]) + raw + b"\x07" + struct.pack(">H", len(text)) + text


def _frame(headers: dict[str, str], payload: bytes) -> bytes:
    """A frame as AWS lays it out, string headers only (written from the spec)."""
    encoded = b"".join(_string_header(k, v) for k, v in headers.items())
    prelude = struct.pack(">II", 16 + len(encoded) + len(payload), len(encoded))
    prelude += struct.pack(">I", _crc(prelude))
    body = prelude + encoded + payload
    return body + struct.pack(">I", _crc(body))


_names = st.text(min_size=1, max_size=12)  # at most 48 bytes: under the 255 limit
_strings = st.text(max_size=40)
_events = st.dictionaries(_names, _strings, max_size=4)
_payloads = st.binary(max_size=200)


@given(st.lists(st.tuples(_events, _payloads), max_size=4))
def test_frames_written_from_the_spec_decode_back(
    frames: list[tuple[dict[str, str], bytes]],
) -> None:
    body = b"".join(_frame(headers, payload) for headers, payload in frames)
    decoded = decode_frames(body)
    assert [(dict(f.headers), f.payload) for f in decoded] == frames


@given(_events, _payloads)
def test_the_encoder_writes_what_the_spec_says(headers: dict[str, str], payload: bytes) -> None:
    assert encode_frame(headers, payload) == _frame(headers, payload)


_values: st.SearchStrategy[HeaderValue] = st.one_of(
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.binary(max_size=50),
    _strings,
    st.uuids(),
    st.integers(min_value=-(2**40), max_value=2**40).map(
        lambda ms: datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    ),
)


@given(st.dictionaries(_names, _values, max_size=6), _payloads)
def test_every_header_type_round_trips(headers: dict[str, HeaderValue], payload: bytes) -> None:
    (frame,) = decode_frames(encode_frame(headers, payload))
    assert frame == Frame(headers, payload)


def _typed(name: str, kind: int, value: bytes) -> bytes:
    raw = name.encode()
    return bytes([len(raw)]) + raw + bytes([kind]) + value


def test_the_narrow_integer_types_decode() -> None:
    headers = (
        _typed("b", 2, b"\xff")
        + _typed("s", 3, b"\x80\x00")
        + _typed("i", 4, b"\x00\x00\x01\x00")
        + _typed("u", 9, uuid.UUID(int=7).bytes)
    )
    prelude = struct.pack(">II", 16 + len(headers), len(headers))
    body = prelude + struct.pack(">I", _crc(prelude)) + headers
    frame = body + struct.pack(">I", _crc(body))
    (decoded,) = decode_frames(frame)
    assert dict(decoded.headers) == {"b": -1, "s": -32768, "i": 256, "u": uuid.UUID(int=7)}


@given(st.lists(st.tuples(_events, _payloads), min_size=1, max_size=3), st.data())
def test_a_flipped_bit_anywhere_is_refused(
    frames: list[tuple[dict[str, str], bytes]], data: st.DataObject
) -> None:
    body = bytearray(b"".join(_frame(h, p) for h, p in frames))
    at = data.draw(st.integers(0, len(body) - 1))
    body[at] ^= 1 << data.draw(st.integers(0, 7))
    with pytest.raises(EventStreamError, match="event-stream frame at byte"):
        decode_frames(bytes(body))


@given(st.lists(st.tuples(_events, _payloads), min_size=1, max_size=3), st.data())
def test_a_body_cut_short_is_refused(
    frames: list[tuple[dict[str, str], bytes]], data: st.DataObject
) -> None:
    body = b"".join(_frame(h, p) for h, p in frames)
    cut = data.draw(st.integers(1, len(body) - 1))
    boundaries = set()
    total = 0
    for headers, payload in frames:
        total += len(_frame(headers, payload))
        boundaries.add(total)
    if cut in boundaries:
        assert len(decode_frames(body[:cut])) < len(frames)
    else:
        with pytest.raises(EventStreamError):
            decode_frames(body[:cut])


def test_a_corrupt_message_crc_is_refused_with_a_clear_error() -> None:
    good = _frame({":event-type": "messageStart"}, b'{"role":"assistant"}')
    bad = good[:-1] + bytes([good[-1] ^ 0xFF])
    with pytest.raises(EventStreamError) as caught:
        decode_frames(good + bad)
    message = str(caught.value)
    assert f"frame at byte {len(good)}" in message
    assert "message CRC-32 does not match" in message
    assert isinstance(caught.value, CassetteError)  # harness's one hierarchy


def test_a_corrupt_prelude_crc_is_refused_before_lengths_are_trusted() -> None:
    good = _frame({":event-type": "messageStop"}, b"{}")
    bad = good[:3] + b"\xff" + good[4:]  # total length now absurd, prelude CRC wrong
    with pytest.raises(EventStreamError, match="prelude CRC-32 does not match"):
        decode_frames(bad)


def test_an_unknown_header_type_is_refused() -> None:
    headers = _typed("x", 42, b"")
    prelude = struct.pack(">II", 16 + len(headers), len(headers))
    body = prelude + struct.pack(">I", _crc(prelude)) + headers
    with pytest.raises(EventStreamError, match="unknown header value type 42"):
        decode_frames(body + struct.pack(">I", _crc(body)))


def test_an_empty_body_has_no_frames() -> None:
    assert decode_frames(b"") == []


def test_a_header_name_too_long_is_refused_when_writing() -> None:
    with pytest.raises(EventStreamError, match="1 to 255 bytes"):
        encode_frame({"x" * 256: "v"}, b"")
