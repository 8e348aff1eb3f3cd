"""Fixtures for provider tests: a loopback HTTP server the real SDKs talk to.

The server binds 127.0.0.1 on a free port, answers each request with the next
canned response in its queue, and records every request it got, so a test can
assert both what the adapter parsed and what it put on the wire.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

FAKE_KEY = "sk-test-SECRET123"  # a key-shaped fake; it must never show up in errors or logs


def pytest_configure(config: pytest.Config) -> None:
    # The harness plugin registers `live` too; a repeated marker line is harmless.
    config.addinivalue_line("markers", "live: calls a real provider API; needs its API key")


@dataclass(frozen=True)
class CannedResponse:
    """One response the server will send."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    chunk_size: int | None = None  # write the body in pieces, to split SSE events
    cut_after: int | None = None  # drop the connection after this many body bytes


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: Mapping[str, str]  # lower-cased names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class LoopbackServer:
    """A threaded HTTP server on 127.0.0.1 serving canned responses in order."""

    def __init__(self) -> None:
        self.requests: list[RecordedRequest] = []
        self._queue: deque[CannedResponse] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(
        self,
        status: int = 200,
        body: bytes = b"",
        *,
        content_type: str = "application/json",
        headers: Mapping[str, str] | None = None,
        delay: float = 0.0,
        chunk_size: int | None = None,
        cut_after: int | None = None,
    ) -> None:
        """Queue a raw response; ``chunk_size`` writes the body in pieces."""
        canned = CannedResponse(
            status, body, content_type, headers or {}, delay, chunk_size, cut_after
        )
        with self._lock:
            self._queue.append(canned)

    def add_json(
        self, payload: object, *, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        self.add(status, json.dumps(payload).encode(), headers=headers)

    def add_sse(self, body: bytes | str, *, chunk_size: int | None = 97) -> None:
        raw = body.encode() if isinstance(body, str) else body
        self.add(200, raw, content_type="text/event-stream", chunk_size=chunk_size)

    def last_json(self) -> Any:
        assert self.requests, "the loopback server received no request"
        return self.requests[-1].json()

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _next(self, request: RecordedRequest) -> CannedResponse:
        with self._lock:
            self.requests.append(request)
            if self._queue:
                return self._queue.popleft()
        # 418 is never retried by the SDKs, so a missing response fails fast and clearly.
        message = f"loopback server has no canned response for {request.method} {request.path}"
        return CannedResponse(418, json.dumps({"error": {"message": message}}).encode())


def _handler_for(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            recorded = RecordedRequest(
                method="POST",
                path=self.path,
                headers={k.lower(): v for k, v in self.headers.items()},
                body=self.rfile.read(length),
            )
            self._reply(server._next(recorded))

        def _reply(self, canned: CannedResponse) -> None:
            if canned.delay:
                time.sleep(canned.delay)
            try:
                self.send_response(canned.status)
                self.send_header("content-type", canned.content_type)
                self.send_header("content-length", str(len(canned.body)))
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                body = canned.body[: canned.cut_after]
                step = canned.chunk_size or len(body) or 1
                for start in range(0, len(body), step):
                    self.wfile.write(body[start : start + step])
                    self.wfile.flush()
                if canned.cut_after is not None:
                    self.close_connection = True
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (timeout tests)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler


@pytest.fixture
def loopback() -> Iterator[LoopbackServer]:
    """A started loopback server; stopped after the test."""
    server = LoopbackServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def fake_key() -> str:
    """A fake API key the loopback server accepts."""
    return FAKE_KEY


@pytest.fixture
def closed_port_url() -> str:
    """A loopback URL nothing listens on (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Offline tests never see real keys or base URLs from the environment."""
    if request.node.get_closest_marker("live"):
        return
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
