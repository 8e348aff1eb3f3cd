"""Tools: the Tool protocol, the registry and its middleware chain, policy, builtins."""

from harness.tools._execution import (
    ToolExecutionContext,
    ToolExecutionResult,
    ToolExecutionStatus,
    ToolMiddleware,
    ToolNext,
)
from harness.tools._policy import ToolPolicyMiddleware
from harness.tools._protocol import Tool, ToolInput, ToolOutput
from harness.tools._registry import ToolRegistry, run_tool
from harness.tools.paths import display_path, resolve_in_workdir

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
