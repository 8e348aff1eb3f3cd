"""A login in a base URL (``http://user:password@host``) never reaches a file or a line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import openai
import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.urls import has_userinfo, redact_userinfo, strip_userinfo
from harness.recording import scan_cassette_file, use_cassette
from harness.simulator import SimulatorServer
from tests.loopback import serving

from .helpers import AGENT_SCRIPT

PASSWORD = "hunter2-Pa55word"
_ANSWER = json.dumps(
    {
        "id": "c1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o-mini",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
).encode()


class _Gateway(BaseHTTPRequestHandler):
    """A plain OpenAI-compatible gateway on loopback (not the simulator)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(_ANSWER)))
        self.end_headers()
        self.wfile.write(_ANSWER)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gateway() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    with serving(server):
        yield f"127.0.0.1:{server.server_port}"


def _record(base: str, path: Path) -> None:
    client = openai.OpenAI(base_url=base, api_key="sk-placeholder-x", max_retries=0)
    with use_cassette(path, record_mode="once"):
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )
    client.close()


def test_a_gateway_login_is_in_neither_the_uri_nor_recorded_against(
    gateway: str, tmp_path: Path
) -> None:
    path = tmp_path / "gw.yaml"
    _record(f"http://alice:{PASSWORD}@{gateway}/v1", path)
    text = path.read_text()
    assert PASSWORD not in text and "alice" not in text
    assert f"recorded_against: {gateway}" in text
    assert f"uri: http://{gateway}/v1/chat/completions" in text
    assert scan_cassette_file(path) == []
    # The stored file still replays for a client that keeps its login.
    _record(f"http://alice:{PASSWORD}@{gateway}/v1", path)


def test_a_simulator_login_is_not_in_recorded_against(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    with SimulatorServer(AGENT_SCRIPT) as sim:
        _record(sim.url.replace("http://", f"http://bob:{PASSWORD}@") + "/v1", path)
    assert PASSWORD not in path.read_text()


def test_cassettes_check_flags_a_login_left_in_an_old_file(gateway: str, tmp_path: Path) -> None:
    path = tmp_path / "old.yaml"
    _record(f"http://{gateway}/v1", path)
    # As an older harness (or a hand edit) left it.
    path.write_text(
        path.read_text()
        .replace(f"recorded_against: {gateway}", f"recorded_against: carol:pw@{gateway}")
        .replace(f"uri: http://{gateway}", f"uri: http://carol:pw@{gateway}")
    )
    findings = scan_cassette_file(path)
    assert {(f.field, f.kind) for f in findings} == {
        ("harness.recorded_against", "login in a host (user@)"),
        ("request.uri", "login in a URL (user:password@)"),
    }
    assert all("pw@" not in str(f) for f in findings)


_HOSTS = st.from_regex(r"[a-z0-9]{1,12}(\.[a-z]{2,5})?(:[0-9]{1,5})?", fullmatch=True)
_LOGINS = st.from_regex(
    r"[A-Za-z0-9._~%!$&*+,;=-]{1,16}(:[A-Za-z0-9._~%!$&*+,;=-]{0,16})?", fullmatch=True
)


@pytest.mark.deep
@given(host=_HOSTS, login=_LOGINS, path=st.from_regex(r"(/[a-z0-9]{0,8}){0,3}", fullmatch=True))
def test_stripping_keeps_every_part_but_the_login(host: str, login: str, path: str) -> None:
    url = f"https://{login}@{host}{path}"
    assert strip_userinfo(url) == f"https://{host}{path}"
    assert has_userinfo(url)
    assert not has_userinfo(strip_userinfo(url))
    said = redact_userinfo(f"connection to {url} failed")
    assert said == f"connection to https://[REDACTED]@{host}{path} failed"
    assert not has_userinfo(said)
    assert strip_userinfo(f"https://{host}{path}") == f"https://{host}{path}"
