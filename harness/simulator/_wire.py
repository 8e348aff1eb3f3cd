"""Bytes on the wire: JSON and SSE answers, ids, and how streams are split."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "FROZEN_CREATED",
    "Answer",
    "Ids",
    "chunks",
    "json_answer",
    "request_seed",
    "sse_answer",
]

_PIECE = re.compile(r"\s*\S+|\s+")
_PIECE_CHARS = 12
_RATE_LIMITED = 429


@dataclass(frozen=True)
class Answer:
    """A complete HTTP answer of the simulator."""

    status: int
    content_type: str
    body: bytes
    headers: tuple[tuple[str, str], ...] = ()


# The simulator's clock is frozen and its ids derive from the request, so
# recording the same scenario twice gives the same bytes (bar the cassette's
# recorded_at): a re-recording diff shows only what harness changed.
FROZEN_CREATED = 1767225600  # 2026-01-01T00:00:00Z


def request_seed(raw: bytes) -> str:
    """A short digest of a request body that names everything answering it."""
    return hashlib.sha256(raw).hexdigest()[:12]


@dataclass
class Ids:
    """Identifiers for one answer, derived from the request (see ``request_seed``)."""

    seed: str
    created: int = FROZEN_CREATED
    _calls: itertools.count[int] = field(default_factory=itertools.count)

    def message(self, prefix: str) -> str:
        """A response id such as ``chatcmpl-sim3fa2c0d1e9b4`` or ``msg_sim3fa2c0d1e9b4``."""
        return f"{prefix}sim{self.seed}"

    def tool_call(self, prefix: str) -> str:
        """A tool call id such as ``call_sim3fa2c0d1e9b4x0``."""
        return f"{prefix}sim{self.seed}x{next(self._calls)}"


def chunks(text: str) -> list[str]:
    """Split text into stream deltas of a word or so, as models stream them."""
    pieces: list[str] = []
    for match in _PIECE.finditer(text):
        word = match.group(0)
        pieces.extend(word[i : i + _PIECE_CHARS] for i in range(0, len(word), _PIECE_CHARS))
    return pieces


def json_answer(payload: Any, status: int = 200) -> Answer:
    """A JSON answer; a 429 tells clients to retry soon, as the real APIs do."""
    headers = (("retry-after-ms", "20"),) if status == _RATE_LIMITED else ()
    # Indented as a cassette stores JSON (and as api.openai.com sends it): a body
    # recorded from the simulator then needs no ``harness_form`` to replay as the
    # bytes that were sent, so re-recording reproduces the committed cassettes.
    body = json.dumps(payload, indent=2, ensure_ascii=False).encode()
    return Answer(status, "application/json", body, headers)


def sse_answer(events: list[tuple[str | None, Any]]) -> Answer:
    """A ``text/event-stream`` answer from ``(event name or None, data)`` pairs."""
    lines: list[str] = []
    for name, data in events:
        if name is not None:
            lines.append(f"event: {name}")
        text = (
            data
            if isinstance(data, str)
            else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        )
        lines.append(f"data: {text}")
        lines.append("")
    return Answer(200, "text/event-stream; charset=utf-8", ("\n".join(lines) + "\n").encode())
