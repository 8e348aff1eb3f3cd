"""A stand-in MCP server over streamable HTTP on 127.0.0.1: replays a tape, or relays.

Replaying, a POST of a request is answered from the :class:`TapePlayer`: as JSON
when only the answer was recorded, as an event stream when the server also sent
notifications before it. A POST of notifications or of the client's answers gets
202. The standalone GET stream the spec allows (for messages the server sends
outside a request) is offered as an event stream that stays open, empty, until
the client leaves, the session is deleted or the stand-in stops: what a server
sent outside a request was recorded with the exchange before it and is replayed
there. (A 405 would be as lawful, but the SDK's client takes it as a failed
stream and tries again.) Other methods get 405 with ``Allow``.

Relaying (recording, or ``--harness-tools live``), every POST, GET and DELETE is
forwarded to the real endpoint with its headers (``Authorization`` stays on the
wire, never in the cassette), a GET stream event by event as it comes, and the
messages each way are shown to a :class:`RelayObserver` (a :class:`TapeRecorder`,
or a :class:`LiveComparer`). While it listens, its port is registered with
:mod:`harness.recording.stand_ins`, so a model cassette open in the same test
leaves its traffic to the MCP cassette.
"""

from __future__ import annotations

import json
import queue
import select
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.mcp._cassette import TapePlayer
from harness.mcp._live import RelayObserver
from harness.recording.stand_ins import register_stand_in, relaying, unregister_stand_in

__all__ = ["McpHttpStandIn"]

# Headers a client's request carries to the real server, and back.
_FORWARDED = ("content-type", "accept", "authorization", "last-event-id")
_SESSION = "mcp-session-id"
_ALLOWED = "GET, POST, DELETE"
# How often an open GET stream looks whether its client left or the stand-in stopped.
_POLL_SECONDS = 0.2


class McpHttpStandIn:
    """One loopback endpoint standing in for one server; ``url`` goes to the agent."""

    def __init__(
        self,
        *,
        player: TapePlayer | None = None,
        observer: RelayObserver | None = None,
        upstream: str | None = None,
    ) -> None:
        if (player is None) == (observer is None) or (observer is not None and not upstream):
            raise ValueError("give a player, or an observer and the upstream URL")
        self.player = player
        self.observer = observer
        self.upstream = upstream
        self.session_id = "harness-replay"
        self.streams = 0  # GET streams opened, for the tests
        self._registered = False
        # Set when the stand-in stops (every open GET stream ends), or the
        # replayed session is deleted (its GET stream ends).
        self._stopped = threading.Event()
        self._ended = threading.Event()
        handler = type("Handler", (_Handler,), {"stand_in": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        # A short poll: stop() waits for serve_forever to notice it (0.5 s by default).
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="mcp-stand-in", daemon=True
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
        self._stopped.set()
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
        stand_in = self.stand_in
        if "text/event-stream" not in self.headers.get("accept", ""):
            self._reply(406, b"a GET stream needs Accept: text/event-stream", "text/plain")
        elif stand_in.observer is not None:
            self._relay_stream()
        else:
            self._open_stream({_SESSION: stand_in.session_id})
            stand_in.streams += 1
            while not self._finished(stand_in._ended):
                continue  # nothing is sent outside a request in a replay: hold it open

    def do_DELETE(self) -> None:
        if self.stand_in.observer is not None:
            self._forward("DELETE", b"")
            return
        self.stand_in._ended.set()
        self._reply(200, b"", "text/plain")

    def do_PUT(self) -> None:
        self._reply(405, b"", "text/plain", {"allow": _ALLOWED})

    do_PATCH = do_PUT

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length") or 0))
        if self.stand_in.observer is not None:
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
        if any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages):
            self.stand_in._ended.clear()  # a new session: its GET stream may open
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

    # -- the GET stream ------------------------------------------------------------

    def _open_stream(self, extra: dict[str, str]) -> None:
        """The headers of an event stream that lasts until this connection closes."""
        self.close_connection = True
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("connection", "close")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.flush()

    def _finished(self, ended: threading.Event | None = None) -> bool:
        """Whether an open stream is over: the stand-in stopped, the session ended, or
        the client closed its end (waits up to ``_POLL_SECONDS`` to find out)."""
        if self.stand_in._stopped.is_set() or (ended is not None and ended.is_set()):
            return True
        try:
            readable, _, _ = select.select([self.connection], [], [], _POLL_SECONDS)
            # A stream's client sends nothing more: readable means it closed (or broke
            # the protocol); either way the stream is over.
            return bool(readable)
        except (OSError, ValueError):
            return True

    def _relay_stream(self) -> None:
        """The real server's GET stream, passed on event by event and shown to the observer."""
        import httpx

        stand_in = self.stand_in
        observer, upstream = stand_in.observer, stand_in.upstream
        assert observer is not None and upstream is not None
        client = httpx.Client(timeout=httpx.Timeout(30, read=None))
        try:
            with relaying():
                response = client.send(
                    client.build_request("GET", upstream, headers=self._forwarded_headers()),
                    stream=True,
                )
        except httpx.HTTPError as exc:
            client.close()
            self._reply(502, str(exc).encode(), "text/plain")
            return
        kind = response.headers.get("content-type", "")
        if response.status_code != 200 or not kind.startswith("text/event-stream"):
            body = response.read()
            response.close()
            client.close()
            extra = {k: response.headers[k] for k in ("allow", _SESSION) if k in response.headers}
            self._reply(response.status_code, body, kind or "text/plain", extra)
            return
        chunks: queue.Queue[bytes | None] = queue.Queue()

        def read() -> None:
            try:
                with relaying():
                    for chunk in response.iter_raw():
                        chunks.put(chunk)
            except (httpx.HTTPError, OSError):
                pass  # the stream ended, or was closed below
            finally:
                chunks.put(None)

        threading.Thread(target=read, name="mcp-stream-relay", daemon=True).start()
        extra = {_SESSION: response.headers[_SESSION]} if _SESSION in response.headers else {}
        self._open_stream(extra)
        stand_in.streams += 1
        pending = b""
        try:
            while True:
                try:
                    chunk = chunks.get(timeout=_POLL_SECONDS)
                except queue.Empty:
                    if self._finished():
                        return
                    continue
                if chunk is None or stand_in._stopped.is_set():
                    return
                self.wfile.write(chunk)
                self.wfile.flush()
                pending = (pending + chunk).replace(b"\r\n", b"\n")
                *events, pending = pending.split(b"\n\n")
                for event in events:
                    text = event.decode("utf-8", "replace")
                    for message in _messages(text + "\n\n", "text/event-stream"):
                        observer.server_sent(message)
        except OSError:
            return  # the client left
        finally:
            response.close()
            client.close()

    # -- relaying --------------------------------------------------------------------

    def _forwarded_headers(self) -> dict[str, str]:
        return {
            name: value
            for name, value in self.headers.items()
            if name.lower() in _FORWARDED or name.lower().startswith("mcp-")
        }

    def _forward(self, method: str, body: bytes) -> None:
        import httpx

        stand_in = self.stand_in
        observer = stand_in.observer
        assert observer is not None and stand_in.upstream is not None
        if body:
            try:
                sent = json.loads(body)
            except ValueError:
                sent = None
            for message in sent if isinstance(sent, list) else [sent]:
                if isinstance(message, dict):
                    observer.client_sent(message)
        headers = self._forwarded_headers()
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
            observer.server_sent(message)
        extra = {k: response.headers[k] for k in ("allow", _SESSION) if k in response.headers}
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
