"""The runtime over a hand-written MCP cassette: no process, so these stay in the default run.

A cassette is a documented format; writing one by hand is how a user pins a
server's behaviour that is hard to provoke live (here: a result that breaks the
tool's own output schema).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.mcp import McpRecording, load_mcp_config
from harness.mcp._cassette import McpCassette, McpExchange, McpServerTape, save_cassette
from harness.providers._scripted import ScriptedProvider, tool_call

pytest.importorskip("mcp")

INIT = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"tools": {}},
    "serverInfo": {"name": "hand", "version": "1"},
}
TOOLS = {
    "tools": [
        {
            "name": "weather",
            "description": "The weather in a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}},
            "outputSchema": {
                "type": "object",
                "properties": {"celsius": {"type": "number"}},
                "required": ["celsius"],
            },
        }
    ]
}


def _call(city: str, result: dict[str, Any]) -> McpExchange:
    params = {"name": "weather", "arguments": {"city": city}}
    return McpExchange(method="tools/call", params=params, result=result)


def _cassette(path: Path) -> None:
    good = {"content": [{"type": "text", "text": "21"}], "structuredContent": {"celsius": 21}}
    bad = {"content": [{"type": "text", "text": "warm"}], "structuredContent": {"celsius": "warm"}}
    tape = McpServerTape(
        transport="stdio",
        target="weather-server",
        exchanges=[
            McpExchange(method="initialize", result=INIT),
            McpExchange(method="notifications/initialized", notification=True),
            McpExchange(method="tools/list", result=TOOLS),
            _call("Oslo", good),
            _call("Rome", bad),
        ],
    )
    save_cassette(McpCassette(servers={"w": tape}), path)


def test_a_replayed_server_serves_its_tools_and_a_bad_result_is_an_error_observation(
    tmp_path: Path,
) -> None:
    cassette = tmp_path / "hand.mcp.json"
    _cassette(cassette)
    servers = load_mcp_config({"w": {"command": "never-started", "approval": "never"}})
    assert servers is not None
    replay = servers.with_recording(McpRecording(cassette, "none"))
    provider = ScriptedProvider(
        [
            tool_call("w__weather", city="Oslo"),
            tool_call("w__weather", city="Rome"),
            tool_call("w__weather", city="Oslo"),
            "done",
        ]
    )
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / ".state")
    with build_application(settings, provider=provider, mcp_servers=replay) as app:
        assert app.registry.get("w__weather") is not None
        result = app.run("weather")
        assert app.mcp is not None and app.mcp.misses == []
    seen = [str(m.content) for m in provider.requests[-1].messages if m.role.value == "tool"]
    assert seen[0] == "21"
    assert seen[1].startswith(
        "Error: MCP server 'w' answered 'weather' with a result that cannot be used: "
    )
    assert seen[2] == "21", "the server stays usable after a result it could not use"
    assert result.text == "done"
