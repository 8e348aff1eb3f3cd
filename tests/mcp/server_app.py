"""A small MCP server for the tests (MCPServer, the SDK's FastMCP), over stdio or HTTP.

Run: ``python server_app.py stdio [TAG]`` or ``python server_app.py http PORT [TAG]``
(TAG only marks the process, so a test can look for it afterwards).
Its tools: ``add`` (read-only hint), ``echo``, ``secret`` (returns a key-like
string), ``crash`` (the process exits mid-call), ``hang`` (never answers),
``fail`` (an error result).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("tests")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> str:
    """Add two whole numbers."""
    return str(a + b)


@server.tool()
def echo(text: str) -> str:
    """Repeat the text, with the server's marker."""
    return f"{os.environ.get('TEST_MARKER', 'echo')}: {text}"


@server.tool()
def secret() -> str:
    """A result holding a credential."""
    return "token sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk"


@server.tool()
def crash() -> str:
    """The server dies mid-call."""
    os._exit(3)


@server.tool()
def hang() -> str:
    """Never answers in time."""
    time.sleep(3600)
    return "late"


@server.tool()
def fail() -> str:
    """An error result."""
    raise ToolError("the widget is broken")


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
