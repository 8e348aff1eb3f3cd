"""The live-call guard holds whatever proxy variables are set (issue 41).

With ``HTTPS_PROXY``, ``HTTP_PROXY`` or ``ALL_PROXY`` (either case) pointing at
a proxy, the openai SDK never looks ``api.openai.com`` up, and the guard used to
let the call go out through the proxy. Here a loopback stand-in proxy records
every request line it gets; eval tests run through pytester must fail with the
guard's one error, and the proxy must never see the API named.
"""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.testing.cassettes._proxy_guard import proxied_target
from tests.loopback import serving

PROXY_TESTS = """
import os, socket, ssl
import openai, pytest

PROXY = os.environ["HARNESS_TEST_PROXY"]
NAMES = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY")

def call(base):
    client = openai.OpenAI(api_key="sk-live-proxy-test", base_url=base, max_retries=0)
    client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}]
    )

@pytest.mark.eval("proxy")
@pytest.mark.parametrize(("variable", "scheme"), [
    ("HTTPS_PROXY", "https"), ("https_proxy", "https"), ("ALL_PROXY", "https"),
    ("all_proxy", "https"), ("HTTP_PROXY", "http"), ("http_proxy", "http"),
])
def test_through_proxy(monkeypatch, variable, scheme):
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    monkeypatch.setenv(variable, PROXY)
    call(scheme + "://api.openai.com/v1")

@pytest.mark.eval("tls-name")
def test_a_handshake_naming_the_api():
    # As behind a SOCKS proxy: the name travels only in the TLS handshake.
    host, port = PROXY.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port))) as raw:
        ssl.create_default_context().wrap_socket(raw, server_hostname="api.anthropic.com")
"""


class _Recorder(socketserver.StreamRequestHandler):
    """Keeps each first line; answers a CONNECT as a proxy would, anything else 502."""

    lines: list[bytes] = []

    def handle(self) -> None:
        line = self.rfile.readline(4096)
        self.lines.append(line)
        if line.startswith(b"CONNECT"):
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.rfile.read(1)  # the client's TLS hello, if it ever comes
        elif line:
            self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")


@pytest.fixture
def proxy() -> Iterator[tuple[str, list[bytes]]]:
    lines: list[bytes] = []
    handler = type("Handler", (_Recorder,), {"lines": lines})
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    with serving(server):
        yield f"http://127.0.0.1:{server.server_address[1]}", lines


@pytest.mark.deep  # seven inner evals; the guard's blocking: test_live_guard_hosts
def test_an_eval_through_any_proxy_variable_is_blocked(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    proxy: tuple[str, list[bytes]],
) -> None:
    url, lines = proxy
    monkeypatch.setenv("HARNESS_TEST_PROXY", url)
    pytester.makepyfile(test_proxied_calls=PROXY_TESTS)
    done = pytester.runpytest("--assert=plain", "-p", "no:randomly")
    done.assert_outcomes(failed=7)
    text = done.stdout.str()
    assert text.count("live call to api.openai.com blocked (an eval test)") == 6, text
    assert text.count("live call to api.anthropic.com blocked (an eval test)") == 1, text
    assert not [line for line in lines if b"api.openai.com" in line], lines


@given(
    st.sampled_from(["CONNECT", "POST", "GET"]),
    st.sampled_from(["api.openai.com", "127.0.0.1", "[::1]", "example.test"]),
    st.sampled_from(["", ":443", ":8080"]),
    st.sampled_from(["absolute", "origin", "connect"]),
)
def test_the_named_host_is_read_from_a_request_line(
    method: str, host: str, port: str, form: str
) -> None:
    target = {
        "absolute": f"http://{host}{port}/v1/x",
        "origin": "/v1/x",
        "connect": f"{host}{port or ':443'}",
    }[form]
    named = proxied_target(f"{method} {target} HTTP/1.1\r\nhost: x\r\n\r\n".encode())
    names = form == "absolute" or (form == "connect" and method == "CONNECT")
    expected = host if names else None
    assert named == (expected.strip("[]") if expected else None)
