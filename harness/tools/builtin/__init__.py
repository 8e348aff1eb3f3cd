"""Builtin tools: read, write, edit, bash (explore lives with the subagent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.tools.builtin.read import ReadTool

if TYPE_CHECKING:
    from harness.tools.builtin.bash import BashTool
    from harness.tools.builtin.edit import EditTool
    from harness.tools.builtin.write import WriteTool

__all__ = ["BashTool", "EditTool", "ReadTool", "WriteTool"]

_LAZY = {
    "BashTool": "harness.tools.builtin.bash",
    "EditTool": "harness.tools.builtin.edit",
    "WriteTool": "harness.tools.builtin.write",
}


def __getattr__(name: str) -> Any:
    # Loaded on first use so that importing the read tool stays cheap.
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness.tools.builtin' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)
