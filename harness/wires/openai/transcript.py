"""A Chat Completions message read as a transcript line.

Chat Completions sends ``{"role", "content"}`` messages, the shape harness's
own messages share: the viewer's transcript (``harness.view._transcript``) reads
those itself. What this wire adds is its tool results (``role: tool``, or the
older ``role: function``), which the ``tool.call`` spans show: they are claimed
here and shown as nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["content_line", "reads"]

_RESULT_ROLES = ("tool", "function")


def reads(message: Any) -> bool:
    """Whether ``message`` is a Chat Completions tool result (a role and a content)."""
    return (
        isinstance(message, Mapping)
        and message.get("role") in _RESULT_ROLES
        and "content" in message
    )


def content_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """None: a tool result is shown from its span."""
    return None
