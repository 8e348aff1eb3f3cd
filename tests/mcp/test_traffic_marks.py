"""MCP calls marked in a traffic trace: the k-th span of a tool is its k-th recorded call."""

from __future__ import annotations

from harness.mcp._cassette import McpExchange, McpServerTape
from harness.testing.cassettes.mcp_traffic import mark_mcp_calls
from harness.tracing import Tracer, TraceTree


def _tree(*tool_names: str) -> TraceTree:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run")
    for name in tool_names:
        tracer.end_span(tracer.begin_span("tool.call", name))
    tree = tracer.end_trace(root)
    assert tree is not None
    return tree


def _tape(*tools: str) -> McpServerTape:
    calls = [
        McpExchange(method="tools/call", params={"name": tool, "arguments": {}}, result={})
        for tool in tools
    ]
    return McpServerTape(transport="stdio", exchanges=[McpExchange(method="initialize"), *calls])


def test_spans_are_marked_by_tool_in_order_and_prefixed_names_match() -> None:
    tree = _tree("add", "read_file", "calc_add", "web__search", "add")
    marked = mark_mcp_calls(tree, [("calc", _tape("add", "add")), ("web", _tape("search"))])
    spans = [s for s in marked.walk() if s.kind == "tool.call"]
    assert [s.attributes.get("mcp_server") for s in spans] == ["calc", None, "calc", "web", None]
    assert spans[2].attributes["gen_ai.tool.name"] == "add"
    assert spans[3].attributes["mcp.method.name"] == "tools/call"


def test_no_tapes_leave_the_trace_alone() -> None:
    tree = _tree("add")
    assert mark_mcp_calls(tree, []) is tree
    assert "mcp_server" not in next(s for s in tree.walk() if s.kind == "tool.call").attributes
