"""A Gemini ``contents`` entry read as a transcript line.

The viewer's transcript (``harness.view._transcript``) shows the messages a run
sent and draws answers, calls and results from the spans. A Gemini request
sends ``{"role": "user" | "model", "parts": [...]}``: a ``model`` turn and a
user turn that only carries ``functionResponse`` parts are shown from the
spans (None here); any other user turn is its text, with inline data and
files named by their type and URI.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from harness.wires.gemini.parts import field

__all__ = ["content_line", "is_gemini_content", "reads"]


def is_gemini_content(message: Any) -> bool:
    """Whether a sent message is a Gemini ``contents`` entry (``parts``, no ``content``)."""
    return isinstance(message, Mapping) and "parts" in message and "content" not in message


def _part_text(part: Mapping[str, Any]) -> str | None:
    if isinstance(part.get("text"), str):
        return None if part.get("thought") else str(part["text"])
    inline = field(part, "inlineData")
    if isinstance(inline, Mapping):
        return f"[inline {field(inline, 'mimeType') or 'data'}]"
    file = field(part, "fileData")
    if isinstance(file, Mapping):
        return f"[file {field(file, 'fileUri') or ''} ({field(file, 'mimeType') or '?'})]"
    return None


def content_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(role, text)`` of a sent ``contents`` entry, or None where the spans show it."""
    role = str(message.get("role") or "user")
    if role == "model":
        return None
    parts = [p for p in message.get("parts") or () if isinstance(p, Mapping)]
    shown = [p for p in parts if field(p, "functionResponse") is None]
    if parts and not shown:
        return None  # only tool results: the tool.call spans show them
    texts = [text for part in shown if (text := _part_text(part)) is not None]
    return role, "".join(texts)


def reads(message: Any) -> bool:
    """Whether this wire reads ``message`` (a Gemini ``contents`` entry)."""
    return is_gemini_content(message)
