"""Tools: the Tool protocol, the registry and its middleware chain, policy, builtins."""

from harness.tools.execution import (
    ToolExecutionContext,
    ToolExecutionResult,
    ToolExecutionStatus,
    ToolMiddleware,
    ToolNext,
)
from harness.tools.paths import display_path, resolve_in_workdir
from harness.tools.policy import ToolPolicyMiddleware
from harness.tools.protocol import Tool, ToolInput, ToolOutput
from harness.tools.registry import ToolRegistry, run_tool

__all__ = [
    "Tool",
    "ToolExecutionContext",
    "ToolExecutionResult",
    "ToolExecutionStatus",
    "ToolInput",
    "ToolMiddleware",
    "ToolNext",
    "ToolOutput",
    "ToolPolicyMiddleware",
    "ToolRegistry",
    "display_path",
    "resolve_in_workdir",
    "run_tool",
]
