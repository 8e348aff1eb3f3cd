"""Builtin tools: read, write, edit, bash (explore lives with the subagent)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr
from harness.tools.builtin.read import ReadTool

if TYPE_CHECKING:
    from harness.tools.builtin.bash import BashTool
    from harness.tools.builtin.edit import EditTool
    from harness.tools.builtin.write import WriteTool

__all__ = ["BashTool", "EditTool", "ReadTool", "WriteTool"]

_LAZY = {
    "BashTool": "bash",
    "EditTool": "edit",
    "WriteTool": "write",
}

# Loaded on first use so that importing the read tool stays cheap.
__getattr__ = lazy_getattr(__name__, _LAZY)
