"""MCP calls in the traffic trace: a foreign agent's tool calls marked with their server.

The traffic trace of an ``llm_cassette`` test draws a ``tool.call`` span for each
tool call the model asked for. When the test also used ``mcp_cassette``, the
calls its MCP servers answered are known by tool name, in order; the k-th span
of a tool is the k-th recorded ``tools/call`` of that tool and gets the
attributes harness's own MCP calls carry (``mcp_server``, ``gen_ai.tool.name``,
``mcp.method.name``). A framework that prefixes MCP tools' names
(``prefix_tool``) is matched at the last ``_`` or ``__`` boundary.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.mcp import McpServerTape
    from harness.tracing import TraceTree

__all__ = ["mark_mcp_calls", "with_mcp_calls"]


def mark_mcp_calls(tree: TraceTree, tapes: Iterable[tuple[str, McpServerTape]]) -> TraceTree:
    """``tree`` with each ``tool.call`` span an MCP server answered marked (in place)."""
    queues: dict[str, deque[str]] = defaultdict(deque)
    for server, tape in tapes:
        for exchange in tape.exchanges:
            name = (exchange.params or {}).get("name")
            if exchange.method == "tools/call" and isinstance(name, str):
                queues[name].append(server)
    if not queues:
        return tree
    for span in tree.walk():
        if span.kind != "tool.call":
            continue
        tool = _tool_of(span.name, queues)
        if tool is None:
            continue
        span.attributes.update(
            {
                "mcp_server": queues[tool].popleft(),
                "gen_ai.tool.name": tool,
                "mcp.method.name": "tools/call",
            }
        )
    return tree


def _tool_of(name: str, queues: dict[str, deque[str]]) -> str | None:
    if queues.get(name):
        return name
    for tool, servers in queues.items():
        if servers and (name.endswith("_" + tool) or name.endswith("__" + tool)):
            return tool
    return None


def with_mcp_calls(
    trace: Callable[[], TraceTree], tapes: Callable[[], list[tuple[str, Any]]]
) -> Callable[[], TraceTree]:
    """A traffic-trace maker whose trees have their MCP calls marked."""

    def marked() -> TraceTree:
        return mark_mcp_calls(trace(), tapes())

    return marked
