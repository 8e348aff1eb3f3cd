"""An OpenAI Agents SDK Agent whose only tools come from an MCP server (stdio or HTTP).

The server is ``examples/mcp_files/server.py``, a filesystem server with
``read_file`` and ``list_files``. The agent is the SDK's own: the test hands it
the command or URL to use, and under ``mcp_cassette`` that is a stand-in that
replays the recorded session with no server process.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel
from agents.mcp import MCPServer
from openai import AsyncOpenAI

MODEL = "gpt-4.1-mini"
SERVER = Path(__file__).resolve().parents[1] / "mcp_files" / "server.py"


def build(client: AsyncOpenAI, server: MCPServer) -> Agent[None]:
    """The agent on chat completions, with the MCP server's tools."""
    return Agent(
        name="reader",
        instructions="Answer from the workspace files; read them first.",
        mcp_servers=[server],
        model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client),
    )


@contextmanager
def http_server(root: Path) -> Iterator[str]:
    """The filesystem server over streamable HTTP on loopback, serving ``root``; its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    command = [sys.executable, str(SERVER), "http", str(port), str(root)]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
