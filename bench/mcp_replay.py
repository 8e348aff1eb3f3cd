"""A replayed MCP call against a live one to a local stdio server (start-up included).

Records one session of ``tests/mcp/server_app.py`` (an MCPServer over stdio) into
an MCP cassette, then times, each as ``McpServers`` does it for an application:

* live: start the server, initialize, list tools, one ``tools/call``, stop it;
* replayed: the same from the cassette (no process);
* per call: ``tools/call`` alone, live and replayed, on an open session.

Targets (issue 45): replay at least 10x faster than starting the server, and
under 1 ms per replayed call.
Run: ``python bench/mcp_replay.py``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from harness.mcp import McpRecording, McpServers, load_mcp_config

SERVER = Path(__file__).resolve().parent.parent / "tests" / "mcp" / "server_app.py"
CALLS = 200


def _servers(cassette: Path | None, mode: str = "none") -> McpServers:
    entry = {"command": sys.executable, "args": [str(SERVER), "stdio"], "approval": "never"}
    config = load_mcp_config({"mcpServers": {"t": entry}})
    assert config is not None
    if cassette is not None:
        config = config.with_recording(McpRecording(cassette, mode))
    return McpServers(config)


def _session(cassette: Path | None, mode: str = "none") -> float:
    started = time.perf_counter()
    servers = _servers(cassette, mode)
    servers.start()
    assert not servers.problems, servers.problems
    servers.call_tool("t", "add", {"a": 1, "b": 2})
    servers.close()
    return time.perf_counter() - started


def _per_call(cassette: Path | None) -> float:
    servers = _servers(cassette)
    servers.start()
    servers.call_tool("t", "add", {"a": 1, "b": 2})
    started = time.perf_counter()
    for _ in range(CALLS):
        servers.call_tool("t", "add", {"a": 1, "b": 2})
    elapsed = (time.perf_counter() - started) / CALLS
    servers.close()
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        cassette = Path(folder) / "bench.mcp.json"
        _session(cassette, "once")  # records
        live = min(_session(None) for _ in range(3))
        replayed = min(_session(cassette) for _ in range(3))
        live_call = _per_call(None)
        replayed_call = _per_call(cassette)
    print(f"session, live (server start-up included): {live * 1000:8.1f} ms")
    print(f"session, replayed (no process):           {replayed * 1000:8.1f} ms")
    print(f"  replay is {live / replayed:.0f}x faster (target >= 10x)")
    print(f"tools/call, live:     {live_call * 1000:8.3f} ms per call")
    print(f"tools/call, replayed: {replayed_call * 1000:8.3f} ms per call (target < 1 ms)")


if __name__ == "__main__":
    main()
