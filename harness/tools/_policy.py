"""Allow/deny policy as a middleware."""

from __future__ import annotations

from collections.abc import Iterable

from harness.tools._execution import ToolExecutionContext, ToolExecutionResult, ToolNext

__all__ = ["ToolPolicyMiddleware"]


class ToolPolicyMiddleware:
    """Refuse tools by name before they run.

    The denylist always wins. An empty allowlist does not narrow anything; a
    non-empty one admits only the names it holds.
    """

    def __init__(self, allowlist: Iterable[str] = (), denylist: Iterable[str] = ()) -> None:
        self.allowlist = frozenset(allowlist)
        self.denylist = frozenset(denylist)

    def allows(self, name: str) -> bool:
        if name in self.denylist:
            return False
        return not self.allowlist or name in self.allowlist

    def __call__(self, ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        name = ctx.tool_name
        if name in self.denylist:
            return ToolExecutionResult.denied(
                f"Error: tool {name!r} is denied by policy (HARNESS_TOOL_DENYLIST); "
                "do not call it again, use another tool or answer without it",
                "tool_denied",
            )
        if self.allowlist and name not in self.allowlist:
            return ToolExecutionResult.denied(
                f"Error: tool {name!r} is not in the allowlist (HARNESS_TOOL_ALLOWLIST); "
                f"allowed tools: {', '.join(sorted(self.allowlist))}",
                "tool_not_allowed",
            )
        return nxt(ctx)
