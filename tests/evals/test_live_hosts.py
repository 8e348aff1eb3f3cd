"""``live`` means a provider's API host: a mock on this machine is unknown in every spelling."""

from __future__ import annotations

import http.server
import json
from collections.abc import Iterator
from pathlib import Path

import openai
import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

import harness.app
import harness.recording
import harness.wires.openai.provider
from harness.core.errors import ConfigurationError
from harness.evals import Source, load_report
from harness.evals.live_hosts import is_live_host, is_local_host, parse_address
from harness.evals.provenance import source_of_recording
from tests.loopback import serving

PRELOADED = (openai, harness.app, harness.wires.openai.provider, harness.recording)

# Spellings of this machine's address that really connect to a server on 127.0.0.1.
REACHING = (
    "127.0.0.1",
    "127.1",
    "0x7f.1",
    "2130706433",
    "0x7f000001",
    "0.0.0.0",
    "0",
    "localhost",
    "[::ffff:127.0.0.1]",
)
# And addresses of this machine or a private network that a test cannot serve on.
LOCAL = (
    *REACHING,
    "localhost.",
    "LOCALHOST",
    "api.localhost",
    "0177.0.0.1",
    "127.000.000.001",
    "[::1]",
    "[0:0:0:0:0:0:0:1]",
    "[::]",
    "[::ffff:7f00:1]",
    "[fe80::1%25eth0]",
    "169.254.169.254",
    "10.0.0.8",
    "10.1",
    "172.16.5.4",
    "192.168.1.20",
    "0xc0a80114",
    "100.64.0.1",
    "[fd00::1]",
    "[2002:7f00:1::]",
)

_ANSWER = {
    "id": "chatcmpl-mock",
    "object": "chat.completion",
    "created": 0,
    "model": "gpt-4.1-mini",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "hello from a mock"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 5, "completion_tokens": 4, "total_tokens": 9},
}


class _Mock(http.server.BaseHTTPRequestHandler):
    """An OpenAI-compatible mock that is not the simulator (no simulator header)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps(_ANSWER).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def mock_port() -> Iterator[int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Mock)
    with serving(server):
        yield int(server.server_address[1])


EVAL = """
import pytest


@pytest.mark.eval("mocked")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_mocked(harness_app):
    assert harness_app.run("hi").text == "hello from a mock"
"""


@pytest.mark.parametrize(
    "host", [h if h != "0" else pytest.param(h, marks=pytest.mark.deep) for h in REACHING]
)
def test_a_mock_on_this_machine_is_unknown_at_every_spelling(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mock_port: int, host: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mock-not-a-key")
    pytester.makepyfile(test_mocked=EVAL)
    url = f"http://{host}:{mock_port}/v1"
    report = pytester.path / "report.json"
    record = ("--record-mode", "rewrite", "--harness-base-url", url)
    pytester.runpytest(*record, "--harness-report", str(report)).assert_outcomes(passed=1)
    (row,) = load_report(report).rows
    assert row.source is Source.UNKNOWN, (host, row.source)
    (cassette,) = (pytester.path / "cassettes").rglob("*.yaml")
    against = yaml.safe_load(cassette.read_text("utf-8"))["harness"]["recorded_against"]
    assert str(mock_port) in against and source_of_recording(against) is Source.UNKNOWN
    if host != "0x7f.1":
        return  # one replay shows the label survives it; each spelling costs a run
    monkeypatch.delenv("OPENAI_API_KEY")
    pytester.runpytest("--harness-report", str(report)).assert_outcomes(passed=1)
    (replayed,) = load_report(report).rows
    assert replayed.source is Source.UNKNOWN


@pytest.mark.parametrize("host", LOCAL)
def test_local_addresses_are_never_live(host: str) -> None:
    name = host.replace("%25", "%")
    assert is_local_host(name.strip("[]")) or name.rstrip(".").lower().endswith("localhost")
    assert not is_live_host(name)
    assert source_of_recording(f"{name}:8001") is Source.UNKNOWN
    # vLLM's default port names a local server, never a live one.
    assert source_of_recording(f"{name}:8000") is Source.LOCAL
    # The simulator on such an address is still the simulator.
    assert source_of_recording(f"{name}:8000 (harness simulator)") is Source.SIMULATOR


@given(st.integers(0, 2**32 - 1))
def test_every_integer_spelling_of_an_ipv4_address_parses_as_its_dotted_form(n: int) -> None:
    dotted = ".".join(str((n >> s) & 255) for s in (24, 16, 8, 0))
    assert parse_address(str(n)) == parse_address(hex(n)) == parse_address(dotted)


def test_known_api_hosts_are_live_and_an_undeclared_gateway_is_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("HARNESS_LIVE_HOSTS", raising=False)
    assert source_of_recording("api.openai.com") is Source.LIVE
    assert source_of_recording("api.anthropic.com:443, api.openai.com") is Source.LIVE
    assert source_of_recording("API.OpenAI.com.") is Source.LIVE
    assert source_of_recording("llm.corp.example:443") is Source.UNKNOWN
    assert source_of_recording("api.openai.com.evil.example") is Source.UNKNOWN
    assert source_of_recording("api.openai.com, 127.1:8000") is Source.UNKNOWN


def test_a_declared_gateway_is_live_but_a_declared_local_address_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HARNESS_LIVE_HOSTS", "llm.corp.example, .gw.example")
    assert source_of_recording("llm.corp.example:443") is Source.LIVE
    assert source_of_recording("eu.gw.example") is Source.LIVE
    assert source_of_recording("gw.example") is Source.LIVE
    assert source_of_recording("other.example") is Source.UNKNOWN
    monkeypatch.setenv("HARNESS_LIVE_HOSTS", "llm.corp.example,0x7f.1")
    with pytest.raises(ConfigurationError, match=r"HARNESS_LIVE_HOSTS names 0x7f\.1, an address"):
        source_of_recording("llm.corp.example")


def test_the_docs_say_how_to_declare_a_gateway() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "evals.md").read_text("utf-8")
    assert "HARNESS_LIVE_HOSTS" in guide
