"""A stand-in MCP server over streamable HTTP on 127.0.0.1: replays a tape, or records.

Replaying, a POST of a request is answered from the :class:`TapePlayer`: as JSON
when only the answer was recorded, as an event stream when the server also sent
notifications before it. A POST of notifications or of the client's answers gets
202. There is no standalone GET stream (405, which the SDK's client accepts), so
nothing arrives outside a request. Recording, every POST is forwarded to the
real endpoint, with its headers (``Authorization`` stays on the wire, never in
the cassette), and the messages each way are written to a :class:`TapeRecorder`.
While it listens, its port is registered with :mod:`harness.recording.stand_ins`,
so a model cassette open in the same test leaves its traffic to the MCP cassette.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.mcp.cassette import TapePlayer, TapeRecorder
from harness.recording.stand_ins import register_stand_in, relaying, unregister_stand_in

__all__ = ["McpHttpStandIn"]

# Headers a client's request carries to the real server, and back.
_FORWARDED = ("content-type", "accept", "authorization", "last-event-id")
_SESSION = "mcp-session-id"


class McpHttpStandIn:
    """One loopback endpoint standing in for one server; ``url`` goes to the agent."""

    def __init__(
        self,
        *,
        player: TapePlayer | None = None,
        recorder: TapeRecorder | None = None,
        upstream: str | None = None,
    ) -> None:
        if (player is None) == (recorder is None) or (recorder is not None and not upstream):
            raise ValueError("give a player, or a recorder and the upstream URL")
        self.player = player
        self.recorder = recorder
        self.upstream = upstream
        self.session_id = "harness-replay"
        self._registered = False
        handler = type("Handler", (_Handler,), {"stand_in": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="mcp-stand-in", daemon=True
        )

    @property
    def url(self) -> str:
        port = self._server.server_address[1]
        return f"http://127.0.0.1:{port}/mcp"

    def start(self) -> McpHttpStandIn:
        # Its traffic is MCP, not the model's: no open (or later opened) model cassette
        # records or plays it, so a test may use llm_cassette too with no ignore_hosts.
        register_stand_in(self._port)
        self._registered = True
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        if self._registered:
            self._registered = False
            unregister_stand_in(self._port)

    @property
    def _port(self) -> int:
        return int(self._server.server_address[1])


class _Handler(BaseHTTPRequestHandler):
    stand_in: McpHttpStandIn
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        return  # quiet: a test's output is not the place for an access log

    def do_GET(self) -> None:
        self._reply(405, b"", "text/plain")

    def do_DELETE(self) -> None:
        if self.stand_in.recorder is not None:
            self._forward("DELETE", b"")
            return
        self._reply(200, b"", "text/plain")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.stand_in.recorder is not None:
            self._forward("POST", body)
            return
        player = self.stand_in.player
        assert player is not None
        try:
            sent = json.loads(body)
        except ValueError:
            self._reply(400, b'{"error": "not JSON"}', "application/json")
            return
        messages = sent if isinstance(sent, list) else [sent]
        replies: list[dict[str, Any]] = []
        for message in messages:
            if isinstance(message, dict):
                replies.extend(player.answer(message))
        asked = any(isinstance(m, dict) and "method" in m and "id" in m for m in messages)
        if not asked:
            self._reply(202, b"", "text/plain")
        elif len(replies) == 1:
            self._reply(200, json.dumps(replies[0]).encode(), "application/json")
        else:
            events = "".join(f"event: message\ndata: {json.dumps(r)}\n\n" for r in replies)
            self._reply(200, events.encode(), "text/event-stream")

    def _forward(self, method: str, body: bytes) -> None:
        import httpx

        stand_in = self.stand_in
        recorder = stand_in.recorder
        assert recorder is not None and stand_in.upstream is not None
        if body:
            try:
                sent = json.loads(body)
            except ValueError:
                sent = None
            for message in sent if isinstance(sent, list) else [sent]:
                if isinstance(message, dict):
                    recorder.client_sent(message)
        headers = {
            name: value
            for name, value in self.headers.items()
            if name.lower() in _FORWARDED or name.lower().startswith("mcp-")
        }
        try:
            with relaying():  # the hop to the real server is no model cassette's either
                response = httpx.request(
                    method, stand_in.upstream, content=body, headers=headers, timeout=300
                )
        except httpx.HTTPError as exc:
            self._reply(502, str(exc).encode(), "text/plain")
            return
        kind = response.headers.get("content-type", "")
        for message in _messages(response.text, kind):
            recorder.server_sent(message)
        extra = {_SESSION: response.headers[_SESSION]} if _SESSION in response.headers else {}
        self._reply(response.status_code, response.content, kind or "text/plain", extra)

    def _reply(
        self, status: int, body: bytes, kind: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        if self.stand_in.player is not None:
            self.send_header(_SESSION, self.stand_in.session_id)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)


def _messages(text: str, kind: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of a response body (JSON, or an event stream's data)."""
    chunks: list[str] = []
    if kind.startswith("text/event-stream"):
        for event in text.replace("\r\n", "\n").split("\n\n"):
            data = [line[5:].lstrip() for line in event.split("\n") if line.startswith("data:")]
            if data:
                chunks.append("\n".join(data))
    elif text.strip():
        chunks.append(text)
    found: list[dict[str, Any]] = []
    for chunk in chunks:
        try:
            value = json.loads(chunk)
        except ValueError:
            continue
        for message in value if isinstance(value, list) else [value]:
            if isinstance(message, dict):
                found.append(message)
    return found
