"""MCP tools as harness tools: named ``<server>__<tool>``, traced as ``<server>.<tool>``.

A model's tool name may hold only letters, digits, ``_`` and ``-`` (64 at most
for OpenAI), so the server and the tool are joined by ``__``; the trace names
the call ``tool.call <server>.<tool>`` and adds the OpenTelemetry GenAI / MCP
attributes (``gen_ai.tool.name``, ``mcp.method.name``, ``mcp.session.id``,
``mcp.protocol.version``, ``network.transport``). The calls go through the
registry's middleware chain like any tool: allow/deny lists, approval, tracing.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from harness.mcp._client import McpServers, McpToolInfo
from harness.tools import ToolInput, ToolOutput
from harness.tracing import NullTracer, Tracer

__all__ = ["McpTool", "mcp_tool_name", "mcp_tools", "needs_approval"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64


def mcp_tool_name(server: str, tool: str) -> str:
    """``<server>__<tool>``, made safe for every model API (a digest keeps long ones apart)."""
    name = f"{server}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.blake2b(name.encode(), digest_size=4).hexdigest()
    return f"{name[: _MAX_NAME - 9]}_{digest}"


def needs_approval(servers: McpServers, info: McpToolInfo) -> bool:
    """Whether calls of ``info`` wait for a human (its server's ``approval``).

    A ``readOnlyHint`` is the server's claim; it lets a call through only where
    the user said to trust it (``trustReadOnlyHints``).
    """
    config = servers.server(info.server)
    if config.approval == "never":
        return False
    return not (config.trust_read_only_hints and info.read_only_hint is True)


class McpTool:
    """One tool of an MCP server, called through the application's ``McpServers``."""

    def __init__(
        self, servers: McpServers, info: McpToolInfo, tracer: Tracer | None = None
    ) -> None:
        self._servers = servers
        self.info = info
        self._name = mcp_tool_name(info.server, info.name)
        self._tracer = tracer or NullTracer()

    @property
    def name(self) -> str:
        return self._name

    @property
    def trace_name(self) -> str:
        """The span's name: ``<server>.<tool>``, the tool's own name unmangled."""
        return f"{self.info.server}.{self.info.name}"

    @property
    def description(self) -> str:
        return self.info.description

    @property
    def parameters(self) -> dict[str, Any]:
        return self.info.input_schema

    def run(self, tool_input: ToolInput) -> ToolOutput:
        info = self.info
        attributes = self._servers.trace_attributes(info.server)
        self._annotate({"gen_ai.tool.name": info.name, **attributes})
        result = self._servers.call_tool(info.server, info.name, dict(tool_input.arguments))
        text = result_text(result)
        metadata: dict[str, Any] = {"mcp_server": info.server, "mcp_tool": info.name}
        if getattr(result, "is_error", False):
            self._annotate({"error.type": "tool_error"})
            from harness.core.errors import ToolError

            raise ToolError(
                f"MCP tool {self.trace_name!r} failed: {text or '(no message)'}",
                error_type="mcp_tool_error",
            )
        return ToolOutput(text, metadata)

    def _annotate(self, attributes: dict[str, Any]) -> None:
        tracer = self._tracer
        span = tracer.current_span() if tracer.enabled else None
        if span is not None:
            tracer.set_attributes(span, **attributes)


def mcp_tools(servers: McpServers, tracer: Tracer | None = None) -> list[McpTool]:
    """A tool for every tool the started servers listed."""
    return [McpTool(servers, info, tracer) for info in servers.tools]


def result_text(result: Any) -> str:
    """The observation of a ``CallToolResult``: its text blocks, others described."""
    parts: list[str] = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            size = len(str(getattr(block, "data", "")))
            parts.append(f"[{kind}: {getattr(block, 'mime_type', '?')}, {size} base64 chars]")
        elif kind == "resource":
            resource = block.resource
            text = getattr(resource, "text", None)
            parts.append(str(text) if text is not None else f"[resource {resource.uri}]")
        elif kind == "resource_link":
            parts.append(f"[resource link {block.uri}]")
        else:
            parts.append(f"[{kind} content]")
    structured = getattr(result, "structured_content", None)
    if not parts and structured is not None:
        return json.dumps(structured, ensure_ascii=False, sort_keys=True)
    return "\n".join(parts)
