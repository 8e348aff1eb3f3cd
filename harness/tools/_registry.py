"""ToolRegistry: the tools a run can use and the middleware chain around them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from harness.core.errors import ConfigurationError, ToolError
from harness.core.messages import ToolDefinition
from harness.tools._execution import (
    ToolExecutionContext,
    ToolExecutionResult,
    ToolMiddleware,
    ToolNext,
)
from harness.tools._protocol import Tool, ToolOutput

__all__ = ["ToolRegistry", "run_tool"]


def run_tool(ctx: ToolExecutionContext) -> ToolExecutionResult:
    """The end of every chain: run the tool, turning a ``ToolError`` into an error result."""
    try:
        output = ctx.tool.run(ctx.tool_input)
    except ToolError as exc:
        return ToolExecutionResult.error(f"Error: {exc}", exc.error_type)
    if isinstance(output, ToolOutput):
        return ToolExecutionResult.completed(output.text, metadata=dict(output.metadata))
    if not isinstance(output, str):
        return ToolExecutionResult.error(
            f"Error: tool {ctx.tool_name!r} returned {type(output).__name__}, not text",
            "tool_bad_output",
        )
    return ToolExecutionResult.completed(output)


class ToolRegistry:
    """Named tools plus an ordered middleware chain.

    Middleware registered first runs first on the way in and returns last on the
    way out (an onion). ``execute`` builds the chain once per registration change,
    not per call.
    """

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        self._middleware: list[ToolMiddleware] = []
        self._chain: ToolNext | None = None
        self._definitions: dict[str, ToolDefinition] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        name = tool.name
        if not name or not name.replace("_", "").replace("-", "").isalnum():
            raise ConfigurationError(
                f"tool name {name!r} is invalid: use letters, digits, '_' or '-'"
            )
        if name in self._tools:
            raise ConfigurationError(
                f"a tool named {name!r} is already registered; give the new tool another name"
            )
        self._tools[name] = tool
        self._definitions[name] = ToolDefinition(
            name=name, description=tool.description, parameters=dict(tool.parameters)
        )

    def use(self, middleware: ToolMiddleware) -> None:
        """Append a middleware to the chain."""
        self._middleware.append(middleware)
        self._chain = None

    @property
    def middleware(self) -> tuple[ToolMiddleware, ...]:
        return tuple(self._middleware)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def definitions(self, names: Sequence[str] | None = None) -> tuple[ToolDefinition, ...]:
        """Definitions of the named tools (all when ``names`` is None), in registry order."""
        if names is None:
            return tuple(self._definitions.values())
        wanted = set(names)
        return tuple(d for n, d in self._definitions.items() if n in wanted)

    def execute(self, ctx: ToolExecutionContext) -> ToolExecutionResult:
        """Run ``ctx`` through the middleware chain and the tool."""
        chain = self._chain
        if chain is None:
            chain = self._chain = self._build_chain()
        return chain(ctx)

    def _build_chain(self) -> ToolNext:
        chain: ToolNext = run_tool
        for middleware in reversed(self._middleware):
            chain = _bind(middleware, chain)
        return chain


def _bind(middleware: ToolMiddleware, nxt: ToolNext) -> ToolNext:
    def step(ctx: ToolExecutionContext) -> ToolExecutionResult:
        return middleware(ctx, nxt)

    return step
