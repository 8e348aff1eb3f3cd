"""What ``build_application`` asks of this room: start the servers, name their tools."""

from __future__ import annotations

from typing import Any

from harness.mcp._client import McpServers
from harness.mcp._config import load_mcp_config
from harness.mcp._tools import McpTool, mcp_tools, needs_approval
from harness.tracing import Tracer

__all__ = ["approval_required", "start_mcp_servers", "tools_of"]


def start_mcp_servers(value: Any, fallback: Any = None) -> McpServers | None:
    """Started servers of ``value`` (a mapping, a path, an ``McpConfig``), else of
    ``fallback`` (``HARNESS_MCP_SERVERS``); None when neither names a server.

    Nothing is left running when starting fails.
    """
    source = value if value is not None else fallback
    where = "HARNESS_MCP_SERVERS" if value is None and fallback is not None else None
    config = load_mcp_config(source, source=where)
    if config is None or not config.enabled():
        return None
    servers = McpServers(config)
    try:
        servers.start()
    except BaseException:
        servers.close()
        raise
    return servers


def tools_of(servers: McpServers | None, tracer: Tracer) -> list[McpTool]:
    return [] if servers is None else mcp_tools(servers, tracer)


def approval_required(servers: McpServers | None) -> tuple[str, ...]:
    """Names of the MCP tools whose calls wait for a human."""
    if servers is None:
        return ()
    return tuple(tool.name for tool in mcp_tools(servers) if needs_approval(servers, tool.info))
