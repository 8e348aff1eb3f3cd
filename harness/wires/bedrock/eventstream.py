"""AWS event-stream framing (``application/vnd.amazon.eventstream``), read and written.

ConverseStream answers with binary frames, not SSE. Each frame is::

    prelude:  total length (uint32 BE) | headers length (uint32 BE) | CRC-32 of those 8 bytes
    headers:  name length (uint8) | name | type (uint8) | value (by type)
    payload:  total - headers - 16 bytes (a JSON object for Bedrock)
    trailer:  CRC-32 of everything before it (uint32 BE)

Both CRCs are checked, so a cassette edited by hand or cut short is refused
with the frame's offset instead of decoded into a wrong answer. Header value
types: 0/1 true/false, 2 int8, 3 int16, 4 int32, 5 int64, 6 bytes (uint16
length), 7 UTF-8 string (uint16 length), 8 timestamp (int64 ms since the
epoch), 9 UUID (16 bytes). botocore decodes the same framing; harness does not
need it (boto3 is not a dependency).
"""

from __future__ import annotations

import struct
import uuid
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Final

from harness.core.errors import CassetteError

__all__ = ["EventStreamError", "Frame", "HeaderValue", "decode_frames", "encode_frame"]

HeaderValue = bool | int | bytes | str | datetime | uuid.UUID

_PRELUDE: Final = struct.Struct(">III")
_CRC: Final = struct.Struct(">I")
_MIN_FRAME: Final = _PRELUDE.size + _CRC.size  # 16: a frame with no headers or payload
_MAX_FRAME: Final = 16 * 1024 * 1024  # AWS's limit on one message
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_INTS: Final = {2: struct.Struct(">b"), 3: struct.Struct(">h"), 4: struct.Struct(">i")}
_LONG: Final = struct.Struct(">q")
_SHORT_LEN: Final = struct.Struct(">H")


class EventStreamError(CassetteError):
    """A body that is not well-formed AWS event-stream framing (bad CRC, cut short)."""


@dataclass(frozen=True)
class Frame:
    """One event-stream message: its headers (``:event-type`` ...) and raw payload."""

    headers: Mapping[str, HeaderValue] = field(default_factory=dict)
    payload: bytes = b""

    @property
    def message_type(self) -> str:
        """``event``, ``exception`` or ``error`` (``event`` when the header is missing)."""
        value = self.headers.get(":message-type")
        return value if isinstance(value, str) else "event"

    @property
    def event_type(self) -> str | None:
        """The event's name (``messageStart``, ``contentBlockDelta``, ...)."""
        value = self.headers.get(":event-type")
        return value if isinstance(value, str) else None


def _crc(data: bytes | memoryview, start: int = 0) -> int:
    return zlib.crc32(data, start) & 0xFFFFFFFF


def decode_frames(data: bytes) -> list[Frame]:
    """Every frame of an event-stream body, in order.

    Raises:
        EventStreamError: a CRC does not match, a length is impossible, the body
            ends inside a frame, or a header is malformed (the message gives the offset).
    """
    return list(_frames(memoryview(data)))


def _frames(data: memoryview) -> Iterator[Frame]:
    offset = 0
    while offset < len(data):
        if len(data) - offset < _MIN_FRAME:
            raise _error(offset, f"{len(data) - offset} trailing bytes are not a whole frame")
        total, headers_length, prelude_crc = _PRELUDE.unpack_from(data, offset)
        if _crc(data[offset : offset + 8]) != prelude_crc:
            raise _error(offset, "prelude CRC-32 does not match (corrupt or not an event stream)")
        if not _MIN_FRAME <= total <= _MAX_FRAME or headers_length > total - _MIN_FRAME:
            raise _error(offset, f"impossible lengths (total {total}, headers {headers_length})")
        end = offset + total
        if end > len(data):
            raise _error(offset, f"frame of {total} bytes is cut short at {len(data) - offset}")
        (message_crc,) = _CRC.unpack_from(data, end - _CRC.size)
        if _crc(data[offset : end - _CRC.size]) != message_crc:
            raise _error(offset, "message CRC-32 does not match (the frame was altered)")
        start = offset + _PRELUDE.size
        headers = _headers(data[start : start + headers_length], offset)
        payload = bytes(data[start + headers_length : end - _CRC.size])
        yield Frame(headers, payload)
        offset = end


def _error(offset: int, what: str) -> EventStreamError:
    return EventStreamError(
        f"event-stream frame at byte {offset}: {what}; the recorded "
        "application/vnd.amazon.eventstream body must be kept byte for byte"
    )


def _headers(raw: memoryview, frame: int) -> dict[str, HeaderValue]:
    headers: dict[str, HeaderValue] = {}
    at = 0
    try:
        while at < len(raw):
            size = raw[at]
            name = bytes(raw[at + 1 : at + 1 + size]).decode("utf-8")
            at += 1 + size
            kind = raw[at]
            at += 1
            value, at = _value(raw, at, kind)
            headers[name] = value
    except (IndexError, struct.error, UnicodeDecodeError, ValueError) as exc:
        raise _error(frame, f"malformed header at byte {at} of the headers ({exc})") from None
    return headers


def _value(raw: memoryview, at: int, kind: int) -> tuple[HeaderValue, int]:
    if kind in (0, 1):
        return kind == 0, at
    if kind in _INTS:
        shape = _INTS[kind]
        return shape.unpack_from(raw, at)[0], at + shape.size
    if kind in (5, 8):
        (number,) = _LONG.unpack_from(raw, at)
        value: HeaderValue = number if kind == 5 else _EPOCH + timedelta(milliseconds=number)
        return value, at + _LONG.size
    if kind in (6, 7):
        (length,) = _SHORT_LEN.unpack_from(raw, at)
        body = bytes(raw[at + 2 : at + 2 + length])
        if len(body) != length:
            raise ValueError(f"value of {length} bytes runs past the headers")
        return (body if kind == 6 else body.decode("utf-8")), at + 2 + length
    if kind == 9:
        body = bytes(raw[at : at + 16])
        if len(body) != 16:
            raise ValueError("UUID value runs past the headers")
        return uuid.UUID(bytes=body), at + 16
    raise ValueError(f"unknown header value type {kind}")


def encode_frame(headers: Mapping[str, HeaderValue], payload: bytes) -> bytes:
    """One frame with both CRCs, as AWS writes it (for tests and fixtures).

    ``int`` headers are written as int64 (type 5), ``bool`` as type 0/1,
    ``bytes`` 6, ``str`` 7, ``datetime`` 8 (whole milliseconds), ``UUID`` 9.

    Raises:
        EventStreamError: a header name or value too long for the format.
    """
    encoded = b"".join(_header(name, value) for name, value in headers.items())
    total = _MIN_FRAME + len(encoded) + len(payload)
    if total > _MAX_FRAME:
        raise EventStreamError(f"event-stream frame of {total} bytes is over 16 MiB")
    prelude = struct.pack(">II", total, len(encoded))
    prelude += _CRC.pack(_crc(prelude))
    body = prelude + encoded + payload
    return body + _CRC.pack(_crc(body))


def _header(name: str, value: HeaderValue) -> bytes:
    raw_name = name.encode("utf-8")
    if not 0 < len(raw_name) < 256:
        raise EventStreamError(f"event-stream header name {name!r} must be 1 to 255 bytes")
    head = bytes([len(raw_name)]) + raw_name
    if isinstance(value, bool):
        return head + bytes([0 if value else 1])
    if isinstance(value, int):
        return head + b"\x05" + _LONG.pack(value)
    if isinstance(value, datetime):
        millis = (value - _EPOCH) // timedelta(milliseconds=1)
        return head + b"\x08" + _LONG.pack(millis)
    if isinstance(value, uuid.UUID):
        return head + b"\x09" + value.bytes
    kind, body = (b"\x07", value.encode("utf-8")) if isinstance(value, str) else (b"\x06", value)
    if len(body) > 0xFFFF:
        raise EventStreamError(f"event-stream header {name!r}: value over 65535 bytes")
    return head + kind + _SHORT_LEN.pack(len(body)) + body
