"""Builtin tools: read, write, edit, bash (explore lives with the subagent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr
from harness.tools.builtin._read import ReadTool

if TYPE_CHECKING:
    from harness.tools.builtin._bash import BashTool
    from harness.tools.builtin._edit import EditTool
    from harness.tools.builtin._write import WriteTool

__all__ = ["BashTool", "EditTool", "ReadTool", "WriteTool"]

_LAZY = {
    "BashTool": "_bash",
    "EditTool": "_edit",
    "WriteTool": "_write",
}

# Loaded on first use so that importing the read tool stays cheap.
__getattr__ = lazy_getattr(__name__, _LAZY)
