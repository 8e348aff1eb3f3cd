"""A small filesystem MCP server (MCPServer, the SDK's FastMCP): ``read_file``, ``list_files``.

Run it over stdio (``python server.py stdio ROOT``) or streamable HTTP
(``python server.py http PORT ROOT``). It stands in for a filesystem server
such as ``@modelcontextprotocol/server-filesystem`` with Python alone.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError


def build(root: Path) -> MCPServer:
    """The server, reading files under ``root`` only."""
    server = MCPServer("files")

    @server.tool()
    def read_file(path: str) -> str:
        """Read a text file under the root."""
        target = (root / path).resolve()
        if not target.is_relative_to(root.resolve()) or not target.is_file():
            raise ToolError(f"no file {path!r} under the root")
        return target.read_text("utf-8")

    @server.tool()
    def list_files() -> list[str]:
        """The files under the root, relative to it."""
        return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())

    return server


def main(argv: list[str]) -> None:
    if argv[:1] == ["http"]:
        build(Path(argv[2])).run("streamable-http", host="127.0.0.1", port=int(argv[1]))
    else:
        build(Path(argv[1])).run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
