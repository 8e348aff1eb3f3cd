"""Server-sent events (``text/event-stream``) read incrementally, as the WHATWG spec says.

The three wire formats stream their answers as SSE; a recorded stream is the raw
body, and a live one arrives in chunks cut anywhere (even between the ``\\r``
and ``\\n`` of one line end). :class:`SseParser` takes bytes in any chunking and
gives the same events; :func:`parse_sse` reads a whole body. Lines end with
``\\r\\n``, ``\\n`` or ``\\r``; ``data`` lines of one event are joined with ``\\n``;
comments (``:``) and ``id`` / ``retry`` fields are ignored. A last event that the
stream never closed with a blank line is still returned: a recording cut short
keeps what it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

__all__ = ["SseEvent", "SseParser", "is_event_stream", "parse_sse"]

_LINE_END: Final = re.compile(rb"\r\n|\n|\r")
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: its ``event`` field (None when absent) and its data."""

    event: str | None
    data: str


class SseParser:
    """Feed bytes in any chunks; each call returns the events completed so far."""

    def __init__(self) -> None:
        self._buffer = b""
        self._started = False
        self._event: str | None = None
        self._data: list[str] = []

    def feed(self, chunk: bytes) -> list[SseEvent]:
        """Add ``chunk``; return the events it completed."""
        self._buffer += chunk
        if not self._started:
            if len(self._buffer) < len(_BOM) and _BOM.startswith(self._buffer):
                return []  # maybe a BOM still arriving
            self._started = True
            if self._buffer.startswith(_BOM):
                self._buffer = self._buffer[len(_BOM) :]
        events: list[SseEvent] = []
        start = 0
        for end in _LINE_END.finditer(self._buffer):
            if end.group() == b"\r" and end.end() == len(self._buffer):
                break  # a "\n" may follow in the next chunk: one line end, not two
            self._line(self._buffer[start : end.start()], events)
            start = end.end()
        self._buffer = self._buffer[start:]
        return events

    def close(self) -> list[SseEvent]:
        """End of the stream: return the last events, closed or not."""
        events = self.feed(b"")
        tail, self._buffer = self._buffer, b""
        if tail.endswith(b"\r"):
            tail = tail[:-1]
        if tail:
            self._line(tail, events)
        self._dispatch(events)
        return events

    def _line(self, raw: bytes, events: list[SseEvent]) -> None:
        if not raw:
            self._dispatch(events)
            return
        line = raw.decode("utf-8", "replace")
        if line.startswith(":"):
            return
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value

    def _dispatch(self, events: list[SseEvent]) -> None:
        if self._data:
            events.append(SseEvent(self._event or None, "\n".join(self._data)))
        self._event = None
        self._data = []


def parse_sse(body: bytes | str, *, chunks: Iterable[int] = ()) -> list[SseEvent]:
    """Every event of a whole ``text/event-stream`` body.

    Args:
        body: the stream as recorded.
        chunks: sizes to cut the body into before feeding it (the rest goes last);
            only tests use it, to show the chunking does not matter.
    """
    data = body.encode("utf-8") if isinstance(body, str) else body
    parser = SseParser()
    events: list[SseEvent] = []
    position = 0
    for size in chunks:
        events += parser.feed(data[position : position + size])
        position += size
    events += parser.feed(data[position:])
    return events + parser.close()


def is_event_stream(content_type: str | None, body: bytes) -> bool:
    """Whether a response is an event stream: by its header, else by its first line.

    The sniffing is for cassettes that dropped their headers (vcrpy's older
    layout, hand-trimmed files): a JSON body never starts with a field name.
    """
    if content_type and "text/event-stream" in content_type.lower():
        return True
    head = body.lstrip()[:16]
    return head.startswith((b"event:", b"data:", b":"))
