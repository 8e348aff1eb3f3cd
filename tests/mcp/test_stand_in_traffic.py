"""An MCP HTTP stand-in's traffic stays out of the model's cassette: a test may use
``mcp_cassette`` and ``llm_cassette`` together with no ``ignore_hosts``, whichever
fixture was set up first (the stand-in started before or after the cassette
opened), and a recording stand-in's hop to the real server is left out too."""

from __future__ import annotations

from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.mcp._cassette import McpServerTape, TapePlayer, TapeRecorder
from harness.mcp._replay_http import McpHttpStandIn
from harness.recording import use_cassette
from harness.recording.stand_ins import is_stand_in
from tests.loopback import serving

NOTE = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class _Accepting(BaseHTTPRequestHandler):
    """A real MCP endpoint's stand-in for the relay: every POST is accepted (202)."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        self.send_response(202)
        self.send_header("content-length", "0")
        self.end_headers()


@pytest.fixture
def upstream() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Accepting)
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"


def _player() -> McpHttpStandIn:
    return McpHttpStandIn(player=TapePlayer("s", McpServerTape(transport="http", target="x")))


def test_stand_in_traffic_is_neither_recorded_nor_played_in_either_order(
    tmp_path: Path, upstream: str
) -> None:
    before = _player().start()  # mcp_cassette set up first
    try:
        with use_cassette(tmp_path / "model.yaml", record_mode="all") as handle:
            after = _player().start()  # llm_cassette set up first
            recording = McpHttpStandIn(
                observer=TapeRecorder("http", upstream), upstream=upstream
            ).start()
            try:
                for stand_in in (before, after, recording):
                    url = stand_in.url.replace("127.0.0.1", "localhost")
                    for target in (stand_in.url, url):
                        assert httpx.post(target, json=NOTE).status_code == 202
            finally:
                after.stop()
                recording.stop()
            assert handle.exchanges == []
    finally:
        before.stop()
    assert not is_stand_in(before.url)  # a stopped stand-in's port is anyone's again


def test_only_a_registered_port_on_a_loopback_name_is_a_stand_in() -> None:
    stand_in = _player().start()
    try:
        port = stand_in.url.split(":")[2].split("/")[0]
        assert is_stand_in(stand_in.url)
        assert is_stand_in(f"http://[::1]:{port}/mcp")
        assert not is_stand_in(f"http://example.com:{port}/mcp")
        assert not is_stand_in("http://127.0.0.1/v1/chat/completions")
        assert not is_stand_in("not a url:[")
    finally:
        stand_in.stop()
