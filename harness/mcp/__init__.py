"""MCP servers as tools of harness's runtime, and their exchanges recorded and replayed.

``config`` reads the ``mcpServers`` JSON shape; ``client`` holds the sessions on
an event-loop thread of the application; ``tools`` makes each listed tool a
harness tool; ``cassette`` is the recording format and its replay; ``streams``
joins a session to a live server, a recorder or a tape; ``replay`` and
``replay_http`` are stand-in servers (stdio, loopback HTTP) for agents that start
their own; ``live`` compares a live server's answers with its recording.
"""

from harness.mcp.cassette import McpCassette, McpCassetteMiss, McpMiss, load_cassette
from harness.mcp.client import McpCallError, McpServers, McpToolInfo
from harness.mcp.config import McpConfig, McpRecording, McpServerConfig, load_mcp_config
from harness.mcp.tools import McpTool, mcp_tool_name, mcp_tools, needs_approval

__all__ = [
    "McpCallError",
    "McpCassette",
    "McpCassetteMiss",
    "McpConfig",
    "McpMiss",
    "McpRecording",
    "McpServerConfig",
    "McpServers",
    "McpTool",
    "McpToolInfo",
    "load_cassette",
    "load_mcp_config",
    "mcp_tool_name",
    "mcp_tools",
    "needs_approval",
]
