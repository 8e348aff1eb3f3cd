"""Helpers of the MCP tests: the test server's config, a free port, leftover processes."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

SERVER = Path(__file__).with_name("server_app.py")


def new_tag() -> str:
    return f"harness-mcp-test-{uuid.uuid4().hex}"


def stdio_config(tag: str, **extra: Any) -> dict[str, Any]:
    entry = {"command": sys.executable, "args": [str(SERVER), "stdio", tag], **extra}
    return {"mcpServers": {"t": entry}}


def processes_with(tag: str) -> list[int]:
    """Pids of this machine's processes whose command line holds ``tag``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if tag.encode() in cmdline:
            found.append(int(entry.name))
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_http_server(
    tag: str, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], str]:
    """The test server over streamable HTTP on 127.0.0.1 (``env`` added to this
    process's environment); its process and URL."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port), tag],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if process.poll() is not None:
                raise RuntimeError("the test MCP server over HTTP exited") from None
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("the test MCP server over HTTP did not start")
