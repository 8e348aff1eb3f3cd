"""A Converse message read as a transcript line.

The viewer's transcript (``harness.view._transcript``) shows the messages a run
sent and draws answers, calls and results from the spans. A Converse request
sends ``{"role": "user" | "assistant", "content": [blocks]}`` where each block
is keyed by its kind (``{"text": ...}``, ``{"toolResult": ...}``) rather than
tagged with a ``type``: an assistant turn and a user turn that only carries
``toolResult`` blocks are shown from the spans (None here); any other user turn
is its text, with images and documents named by their format.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["content_line", "is_converse_message", "reads"]

# The keys a Converse content block may have (one each); no other wire's blocks
# are keyed this way (theirs carry ``type``).
_BLOCK_KEYS: Final = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "toolUse",
        "toolResult",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "citationsContent",
    }
)
_NAMED: Final = ("image", "document", "video")


def is_converse_message(message: Any) -> bool:
    """Whether a sent message is a Converse one: a list of untyped, kind-keyed blocks."""
    if not isinstance(message, Mapping) or "type" in message:
        return False
    content = message.get("content")
    if not isinstance(content, list) or not content:
        return False
    return all(
        isinstance(b, Mapping) and "type" not in b and len(b) == 1 and set(b) <= _BLOCK_KEYS
        for b in content
    )


def _block_text(block: Mapping[str, Any]) -> str | None:
    if isinstance(block.get("text"), str):
        return str(block["text"])
    for kind in _NAMED:
        value = block.get(kind)
        if isinstance(value, Mapping):
            name = value.get("name")
            label = f" {name}" if isinstance(name, str) and name else ""
            return f"[{kind}{label} ({value.get('format') or '?'})]"
    return None  # cachePoint, reasoning, guard content: not part of what was said


def content_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(role, text)`` of a sent Converse message, or None where the spans show it."""
    role = str(message.get("role") or "user")
    if role == "assistant":
        return None
    blocks = [b for b in message.get("content") or () if isinstance(b, Mapping)]
    shown = [b for b in blocks if "toolResult" not in b]
    if blocks and not shown:
        return None  # only tool results: the tool.call spans show them
    texts = [text for block in shown if (text := _block_text(block)) is not None]
    return role, "".join(texts)


def reads(message: Any) -> bool:
    """Whether this wire reads ``message`` (a Converse message)."""
    return is_converse_message(message)
