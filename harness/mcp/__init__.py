"""MCP servers as tools of harness's runtime, and their exchanges recorded and replayed.

``_config`` reads the ``mcpServers`` JSON shape; ``_client`` holds the sessions on
an event-loop thread of the application; ``_tools`` makes each listed tool a
harness tool, ``_runtime`` starts the servers an application names; ``_cassette``
is the recording format and its replay, ``_check`` its scan for secrets;
``_streams`` joins a session to a live server, a recorder or a tape; ``replay``
(``python -m harness.mcp.replay``) and ``_replay_http`` are stand-in servers
(stdio, loopback HTTP) for agents that start their own; ``_live`` compares a live
server's answers with its recording.

Names resolve on first use: the pytest plugin reads the cassette format at
start-up, and needs neither the client nor the stand-in servers for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.mcp._cassette import (
        McpCassette,
        McpCassetteMiss,
        McpExchange,
        McpMiss,
        McpServerTape,
        TapePlayer,
        TapeRecorder,
        load_cassette,
        mcp_cassette_path,
        mcp_cassettes_from,
        now_stamp,
        numbered_mcp_cassette,
        save_cassette,
    )
    from harness.mcp._check import check_mcp_cassette, split_cassette_files
    from harness.mcp._client import McpCallError, McpServers, McpToolInfo
    from harness.mcp._config import McpConfig, McpRecording, McpServerConfig, load_mcp_config
    from harness.mcp._live import LiveComparer, ResultChange
    from harness.mcp._replay_http import McpHttpStandIn
    from harness.mcp._runtime import approval_required, start_mcp_servers, tools_of
    from harness.mcp._tools import McpTool, mcp_tool_name, mcp_tools, needs_approval

__all__ = [
    "LiveComparer",
    "McpCallError",
    "McpCassette",
    "McpCassetteMiss",
    "McpConfig",
    "McpExchange",
    "McpHttpStandIn",
    "McpMiss",
    "McpRecording",
    "McpServerConfig",
    "McpServerTape",
    "McpServers",
    "McpTool",
    "McpToolInfo",
    "ResultChange",
    "TapePlayer",
    "TapeRecorder",
    "approval_required",
    "check_mcp_cassette",
    "load_cassette",
    "load_mcp_config",
    "mcp_cassette_path",
    "mcp_cassettes_from",
    "mcp_tool_name",
    "mcp_tools",
    "needs_approval",
    "now_stamp",
    "numbered_mcp_cassette",
    "save_cassette",
    "split_cassette_files",
    "start_mcp_servers",
    "tools_of",
]

_HOME = {
    "McpCassette": "_cassette",
    "McpCassetteMiss": "_cassette",
    "McpExchange": "_cassette",
    "McpMiss": "_cassette",
    "McpServerTape": "_cassette",
    "TapePlayer": "_cassette",
    "TapeRecorder": "_cassette",
    "load_cassette": "_cassette",
    "mcp_cassette_path": "_cassette",
    "mcp_cassettes_from": "_cassette",
    "now_stamp": "_cassette",
    "numbered_mcp_cassette": "_cassette",
    "save_cassette": "_cassette",
    "check_mcp_cassette": "_check",
    "split_cassette_files": "_check",
    "McpCallError": "_client",
    "McpServers": "_client",
    "McpToolInfo": "_client",
    "McpConfig": "_config",
    "McpRecording": "_config",
    "McpServerConfig": "_config",
    "load_mcp_config": "_config",
    "LiveComparer": "_live",
    "ResultChange": "_live",
    "McpHttpStandIn": "_replay_http",
    "approval_required": "_runtime",
    "start_mcp_servers": "_runtime",
    "tools_of": "_runtime",
    "McpTool": "_tools",
    "mcp_tool_name": "_tools",
    "mcp_tools": "_tools",
    "needs_approval": "_tools",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
