"""``ProxyServer``: a loopback HTTP server that replays from, and records to, one cassette.

Every wire of the registry goes through one port (their paths differ): a
request is matched in the cassette (``harness.recording.ServedCassette``,
the same cassette, miss reports, header allow-list, secret scan and telemetry
rules as ``llm_cassette``); an unmatched one is forwarded to the upstream
while the mode records, its answer streamed back and recorded, and answered
with the miss report otherwise. Without an upstream it never forwards.

Before the cassette sees a body, the profile's normaliser pins its per-run
values (``harness.proxy._normalise``); the upstream gets the body as sent.
``HEAD`` (a client's connectivity probe) is answered ``200`` and not recorded.

Under ``/__harness__/`` it serves its own state: ``GET exchanges`` (what was
answered so far, and the errors), ``POST stop`` (stop, save, and return the
same with the outcome of the save).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import socket
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from vcr.request import Request

from harness.core.errors import CassetteError, ConfigurationError, HarnessError
from harness.proxy._answers import error_response, write_response
from harness.proxy._exchanges import CONTROL_PREFIX, exchange_to_json
from harness.proxy._forward import Upstreams
from harness.proxy._profiles import normaliser_for
from harness.proxy._spec import ProxySpec
from harness.recording import ServedCassette
from harness.simulator import SEED_HEADER

__all__ = ["ProxyServer"]

_log = logging.getLogger("harness.proxy")
Responder = Callable[[Any], dict[str, Any] | None]


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], owner: ProxyServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    server: _Server
    timeout = 600

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)

    def finish(self) -> None:
        self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        return None  # one line per request is the owner's (see ProxyServer.handle)

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("transfer-encoding") or "").lower():
            data = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return bytes(data)
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def _any(self) -> None:
        self.server.owner.handle(self, self._read_body())

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _any


class ProxyServer:
    """One proxy run (see the module docstring); ``start()``, then ``stop()``.

    Args:
        spec: what to serve and how.
        responder: answers model calls first (a mutant's responses), never recorded.
    """

    def __init__(self, spec: ProxySpec, responder: Responder | None = None) -> None:
        self.spec = spec
        self.normaliser = normaliser_for(spec.profiles, spec.ignore_body_fields, spec.normalize)
        self.upstreams = Upstreams(spec.upstreams)
        self.cassette = ServedCassette(
            spec.cassette,
            record_mode=spec.record_mode,
            ignore_body_fields=self.normaliser.ignore_fields,
            ignore_query_params=spec.ignore_query_params,
            rerecord_hint=spec.rerecord_hint,
            save_error_responses=spec.save_error_responses,
            responder=responder,
            allow_unplayed=spec.allow_unplayed,
        )
        self.errors: list[dict[str, str]] = []
        self.final: dict[str, Any] | None = None  # the state once stopped
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        self._lock = threading.Lock()
        self.url = ""

    # -- life -------------------------------------------------------------
    def start(self) -> ProxyServer:
        """Open the cassette (a missing one fails in mode none) and listen.

        Raises:
            CassetteError: the cassette cannot be opened.
            ConfigurationError: the port cannot be listened on.
        """
        self.cassette.__enter__()
        try:
            self._server = _bind((self.spec.host, self.spec.port), self)
        except ConfigurationError:
            self.cassette.__exit__(None, None, None)
            raise
        host, port = self._server.server_address[:2]
        self.url = f"http://{host!s}:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="harness-proxy", daemon=True
        )
        self._thread.start()
        return self

    def wait(self) -> None:
        """Block until :meth:`stop` (or a ``POST /__harness__/stop``)."""
        self._stopped.wait()

    def stop(self, *, keep: socket.socket | None = None, release: bool = True) -> dict[str, Any]:
        """Stop listening and save the cassette; returns the final state (see :meth:`state`).

        ``keep`` is a connection left open: the one a stop request came on, which
        releases :meth:`wait` itself once it has answered (``release=False``).
        """
        with self._lock:
            server, self._server = self._server, None
        if server is None:
            return self.state()
        server.shutdown()
        for connection in list(server.connections):
            if connection is keep:
                continue
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        self.upstreams.close()
        failure = None
        # After a refused request the refusal is the story: no unplayed complaint on top.
        refused = CassetteError("requests were refused") if self.errors else None
        try:
            self.cassette.__exit__(type(refused) if refused else None, refused, None)
        except HarnessError as exc:
            failure = str(exc)
            _log.error("cassette %s not saved: %s", self.spec.cassette, exc)
        self.final = self.state(failure=failure, closed=True)
        if release:
            self._stopped.set()
        return self.final

    def state(self, *, failure: str | None = None, closed: bool = False) -> dict[str, Any]:
        """The exchanges answered so far, the errors, and at the end whether it saved."""
        handle = self.cassette.handle
        report = handle.report
        state: dict[str, Any] = {
            "exchanges": [exchange_to_json(req, resp) for req, resp in handle.exchanges],
            "errors": list(self.errors),
            "played": report.played,
            "recorded": report.recorded,
            "unplayed": list(report.unplayed),
        }
        if closed:
            state.update(saved=handle.saved, failure=failure)
        return state

    # -- one request --------------------------------------------------------
    def handle(self, handler: _Handler, raw: bytes) -> None:
        """Answer one request and log it in one line."""
        started = time.perf_counter()
        target = handler.path
        if target.startswith(CONTROL_PREFIX):
            self._control(handler, target[len(CONTROL_PREFIX) :])
            return
        try:
            status, how = self._answer(handler, target, raw)
        except (BrokenPipeError, ConnectionResetError):
            status, how = 499, "client went away"
        elapsed = (time.perf_counter() - started) * 1000
        _log.info("%s %s -> %d %s (%.1f ms)", handler.command, target, status, how, elapsed)

    def _answer(self, handler: _Handler, target: str, raw: bytes) -> tuple[int, str]:
        if handler.command == "HEAD":
            write_response(handler, {"status": {"code": 200}, "headers": {}, "body": {}})
            return 200, "probe, not recorded"
        body = self.normaliser.body(raw)
        try:
            forward_to = self.upstreams.url_for(target) if self._forwards() else None
        except ConfigurationError as exc:
            return self._refuse(handler, target, "harness_no_upstream", exc), "no upstream"
        uri = forward_to or f"{self.url}{target}"
        request = Request(handler.command, uri, body, dict(handler.headers.items()))
        try:
            answer = self.cassette.answer(request)
        except CassetteError as exc:
            return self._refuse(handler, target, "harness_replay_miss", exc), "MISS"
        if answer is not None:
            return write_response(handler, answer), "from the cassette"
        if forward_to is None:
            message = (
                f"harness proxy: {handler.command} {target} is not in cassette "
                f"{self.spec.cassette} and there is no upstream to record it from; start the "
                "proxy with --upstream URL (the API or `harness sim serve`)"
            )
            return self._refuse(handler, target, "harness_no_upstream", message), "no upstream"
        try:
            # The simulator names its ids after the pinned body: a re-recording matches.
            seed = (SEED_HEADER, hashlib.sha256(body).hexdigest()[:12])
            response = self.upstreams.forward(handler, forward_to, raw, (seed,))
        except Exception as exc:  # httpx's errors and the OS's: the client gets a 502
            message = f"harness proxy: upstream {forward_to} failed: {type(exc).__name__}: {exc}"
            return self._refuse(
                handler, target, "harness_upstream_error", message, 502
            ), "upstream error"
        self.cassette.record(request, response)
        status = int(response["status"]["code"])
        if status >= 400 and not self.spec.save_error_responses:
            return status, f"from {forward_to}, not recorded (an error answer)"
        return status, f"recorded from {forward_to}"

    def _forwards(self) -> bool:
        return bool(self.upstreams) and self.cassette.records

    def _refuse(
        self, handler: _Handler, target: str, kind: str, error: Exception | str, status: int = 400
    ) -> int:
        message = str(error)
        with self._lock:
            self.errors.append({"kind": kind, "type": type(error).__name__, "message": message})
        _log.warning("%s", message)
        return write_response(handler, error_response(target, kind, message, status))

    def _control(self, handler: _Handler, command: str) -> None:
        if command == "exchanges":
            payload, after = self.state(), None
        elif command == "stop" and handler.command == "POST":
            payload, after = None, True
        else:
            payload, after = {"error": f"unknown control request {command!r}"}, None
        if after:
            # A handler runs on its own thread, so shutdown() may wait for the serving loop.
            payload = self.stop(keep=handler.connection, release=False)
            handler.close_connection = True
        body = json.dumps(payload).encode("utf-8")
        write_response(
            handler,
            {
                "status": {"code": 200},
                "headers": {"content-type": ["application/json"]},
                "body": {"string": body},
            },
        )
        if after:
            self._stopped.set()


def _bind(address: tuple[str, int], owner: ProxyServer) -> _Server:
    host, port = address
    try:
        return _Server(address, owner)
    except OverflowError:
        raise ConfigurationError(
            f"cannot listen on {host}:{port}: the port must be 0-65535 (0 picks a free one)"
        ) from None
    except OSError as exc:
        reason = (
            "the port is already in use; choose another (0 picks a free one)"
            if exc.errno == errno.EADDRINUSE
            else f"{exc.strerror or exc}; check the host and port"
        )
        raise ConfigurationError(f"cannot listen on {host}:{port}: {reason}") from None
