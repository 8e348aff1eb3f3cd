"""A Responses API input item read as a transcript line.

A Responses request sends ``input`` items: messages (``{"type": "message"}``
or a bare ``{"role", "content"}``, the shape the viewer's transcript reads
itself) and the items the spans show instead: ``function_call``,
``function_call_output``, ``reasoning`` and their kin. Those are claimed here
and shown as nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["content_line", "reads"]


def reads(message: Any) -> bool:
    """Whether ``message`` is a Responses input item other than a message."""
    return isinstance(message, Mapping) and message.get("type", "message") != "message"


def content_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """None: calls, their outputs and reasoning are shown from the spans."""
    return None
