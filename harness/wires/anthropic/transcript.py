"""A Messages user turn that only carries tool results, read as a transcript line.

Anthropic Messages sends ``{"role", "content"}`` messages whose content is a
string or a list of typed blocks, the shape the viewer's transcript
(``harness.view._transcript``) reads itself. A user turn of ``tool_result``
blocks and nothing else is how this wire answers tool calls, which the
``tool.call`` spans show: it is claimed here and shown as nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["content_line", "reads"]


def reads(message: Any) -> bool:
    """Whether ``message`` carries tool results and nothing else."""
    if not isinstance(message, Mapping):
        return False
    content = message.get("content")
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)
    )


def content_line(message: Mapping[str, Any]) -> tuple[str, str] | None:
    """None: tool results are shown from their spans."""
    return None
