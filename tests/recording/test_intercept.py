"""``use_cassette(intercept=...)``: a replay that patches only the SDK's HTTP library.

Narrowing is a speed-up for replays (vcrpy patches every library it knows on
every entry); what it leaves out must still never go out unrecorded.
"""

from __future__ import annotations

import http.client
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.core import CassetteError, ConfigurationError
from harness.recording import NetworkBlockedError, use_cassette
from harness.simulator import SimulatorServer
from tests.loopback import serving

from .helpers import openai_client, openai_conversation


@pytest.fixture
def recorded(sim: SimulatorServer, tmp_path: Path) -> tuple[Path, str, list[object]]:
    """A cassette of the two-turn agent, the simulator's URL and what it answered."""
    path = tmp_path / "agent.yaml"
    with openai_client(sim.url) as client, use_cassette(path, record_mode="once"):
        answers = openai_conversation(client)
    return path, sim.url, list(answers)


def test_a_narrowed_replay_serves_the_sdk_as_a_full_one_does(
    recorded: tuple[Path, str, list[object]],
) -> None:
    path, url, answers = recorded
    with openai_client(url) as client, use_cassette(path, intercept=("httpx2",)) as handle:
        assert openai_conversation(client) == answers
    assert handle.report.played == 2 and handle.report.all_played


@pytest.fixture
def loopback_server() -> Iterator[tuple[str, int, list[str]]]:
    """A plain HTTP server on 127.0.0.1 that logs the paths it was asked for."""
    seen: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: object) -> None:
            del format, args

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with serving(server):
        yield "127.0.0.1", server.server_address[1], seen


def _get(host: str, port: int, path: str) -> bytes:
    connection = http.client.HTTPConnection(host, port, timeout=2)
    try:
        connection.request("GET", path)
        return connection.getresponse().read()
    finally:
        connection.close()


def test_a_library_left_out_is_not_served_by_the_cassette_and_cannot_leave_the_machine(
    recorded: tuple[Path, str, list[object]], loopback_server: tuple[str, int, list[str]]
) -> None:
    path, _, _ = recorded
    host, port, seen = loopback_server
    with use_cassette(path, intercept=("httpx2",)):
        # http.client is not patched: loopback reaches its own server, untouched...
        assert _get(host, port, "/plain") == b"ok"
        # ...and anything else is refused by the guard before a packet leaves.
        with pytest.raises(NetworkBlockedError, match=r"10\.255\.255\.1"):
            _get("10.255.255.1", 9, "/out")
    assert seen == ["/plain"]


def test_the_full_replay_still_serves_every_library_from_the_cassette(
    recorded: tuple[Path, str, list[object]], loopback_server: tuple[str, int, list[str]]
) -> None:
    path, _, _ = recorded
    host, port, seen = loopback_server
    with pytest.raises(CassetteError, match="no GET /plain request"), use_cassette(path):
        _get(host, port, "/plain")  # intercepted: no such request was recorded
    assert seen == []


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"intercept": ("httpx3",)}, r"unknown HTTP libraries \['httpx3'\]"),
        ({"intercept": ("httpx2",), "record_mode": "once"}, "without the network guard"),
        (
            {"intercept": ("httpx2",), "record_mode": "none", "block_network": False},
            "block_network=True",
        ),
    ],
)
def test_a_narrowing_that_could_go_out_unrecorded_is_refused(
    tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        use_cassette(tmp_path / "never.yaml", **options)  # type: ignore[arg-type]
    assert not (tmp_path / "never.yaml").exists()


def test_narrowing_to_every_library_needs_no_guard(tmp_path: Path) -> None:
    from vcr.patch import PATCHER_NAMES

    session = use_cassette(tmp_path / "c.yaml", record_mode="once", intercept=PATCHER_NAMES)
    with session as handle:
        assert handle.record_mode.value == "once"


def test_a_file_holding_another_librarys_traffic_replays_in_full(
    sim: SimulatorServer, tmp_path: Path, loopback_server: tuple[str, int, list[str]]
) -> None:
    host, port, seen = loopback_server
    path = tmp_path / "mixed.yaml"
    with openai_client(sim.url) as client, use_cassette(path, record_mode="once"):
        answers = openai_conversation(client)
        assert _get(host, port, "/tool") == b"ok"  # a tool's own call, recorded beside
    assert seen == ["/tool"]
    narrowed = {"intercept": ("httpx2",), "intercept_paths": ("/chat/completions",)}
    with openai_client(sim.url) as client, use_cassette(path, **narrowed) as handle:  # type: ignore[arg-type]
        assert openai_conversation(client) == answers
        assert _get(host, port, "/tool") == b"ok"  # played from the file...
    assert seen == ["/tool"]  # ...not sent again
    assert handle.report.all_played


def test_a_file_of_the_sdks_traffic_alone_is_narrowed(
    recorded: tuple[Path, str, list[object]], loopback_server: tuple[str, int, list[str]]
) -> None:
    path, url, answers = recorded
    host, port, seen = loopback_server
    narrowed = {"intercept": ("httpx2",), "intercept_paths": ("/chat/completions",)}
    with openai_client(url) as client, use_cassette(path, **narrowed):  # type: ignore[arg-type]
        assert openai_conversation(client) == answers
        assert _get(host, port, "/plain") == b"ok"  # not patched: it reached the server
    assert seen == ["/plain"]
