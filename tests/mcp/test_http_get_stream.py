"""The HTTP stand-in's standalone GET stream, as the MCP spec has it and the SDK's client uses it.

The spec lets a client open a GET event stream for messages the server sends
outside a request; the server answers with an event stream or 405. The
``mcp`` SDK's client opens it after ``initialize`` and takes a 405 as a broken
stream that it tries again. A replaying stand-in holds an empty stream open
until the client leaves; a relaying one passes the real server's stream on.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

import anyio
import httpx
import pytest

from harness.mcp._cassette import McpExchange, McpServerTape, TapePlayer, TapeRecorder
from harness.mcp._replay_http import McpHttpStandIn
from tests.mcp.servers import new_tag, start_http_server

pytest.importorskip("mcp")

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


def _tape() -> McpServerTape:
    """A recorded session of the 2025-11-25 protocol: initialize, then one ``add`` call."""
    init = {
        "protocolVersion": "2025-11-25",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "tests", "version": "1"},
    }
    add = {"name": "add", "inputSchema": {"type": "object", "properties": {}}}
    return McpServerTape(
        transport="http",
        exchanges=[
            McpExchange(method="initialize", result=init),
            McpExchange(method="notifications/initialized", notification=True),
            McpExchange(method="tools/list", result={"tools": [add]}),
            McpExchange(
                method="tools/call",
                params={"name": "add", "arguments": {"a": 2, "b": 3}},
                result={"content": [{"type": "text", "text": "5"}], "isError": False},
            ),
        ],
    )


def _until(condition: Callable[[], bool]) -> bool:
    """Whether ``condition`` holds within a minute (a wait, not a speed check)."""
    deadline = time.monotonic() + 60
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _session(url: str, stand_in: McpHttpStandIn, call: tuple[str, dict[str, object]]) -> str:
    """Initialize, wait for the client's GET stream to be open, call a tool."""

    async def main() -> str:
        async with streamable_http_client(url) as streams, ClientSession(*streams) as session:
            await session.initialize()
            opened = await anyio.to_thread.run_sync(lambda: _until(lambda: stand_in.streams == 1))
            assert opened, "the SDK's client opened no GET stream on the stand-in"
            result = await session.call_tool(*call)
            text = result.content[0]
            assert text.type == "text"
            return text.text

    return anyio.run(main)


def test_a_replay_answers_the_get_with_an_event_stream_held_open(
    caplog: pytest.LogCaptureFixture,
) -> None:
    stand_in = McpHttpStandIn(player=TapePlayer("calc", _tape())).start()
    try:
        accept = {"accept": "text/event-stream"}
        with httpx.stream("GET", stand_in.url, headers=accept, timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["content-type"] == "text/event-stream"
            assert response.headers["mcp-session-id"] == stand_in.session_id
        refused = httpx.get(stand_in.url, headers={"accept": "application/json"}, timeout=30)
        assert refused.status_code == 406, "a GET stream needs Accept: text/event-stream"
        put = httpx.put(stand_in.url, timeout=30)
        assert (put.status_code, put.headers["allow"]) == (405, "GET, POST, DELETE")
        stand_in.streams = 0
        with caplog.at_level(logging.DEBUG, logger="mcp.client.streamable_http"):
            text = _session(stand_in.url, stand_in, ("add", {"a": 2, "b": 3}))
        assert text == "5"
        assert "GET stream error" not in caplog.text  # the SDK took the stream as offered
        assert stand_in.player is not None and stand_in.player.misses == []
    finally:
        stand_in.stop()


@pytest.mark.deep
def test_a_recording_relays_the_real_servers_get_stream() -> None:
    process, url = start_http_server(new_tag())
    try:
        recorder = TapeRecorder("http", url)
        stand_in = McpHttpStandIn(observer=recorder, upstream=url).start()
        try:
            assert _session(stand_in.url, stand_in, ("add", {"a": 2, "b": 3})) == "5"
        finally:
            stand_in.stop()
    finally:
        process.kill()
        process.wait()
    methods = [e.method for e in recorder.tape.exchanges]
    assert methods[0] == "initialize" and "tools/call" in methods, methods
