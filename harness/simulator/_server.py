"""``SimulatorServer``: a loopback HTTP server speaking the OpenAI and Anthropic APIs."""

from __future__ import annotations

import contextlib
import errno
import gzip
import json
import logging
import os
import re
import socket
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Protocol

from harness.core.errors import ConfigurationError
from harness.core.wire_parts import load_part
from harness.core.wires import Wire, ready_wires, wire_for_path
from harness.recording import SIMULATOR_HEADER
from harness.simulator._addressing import foreign_target, split_target
from harness.simulator._conversation import ApiError, Conversation
from harness.simulator._held import HeldConversations
from harness.simulator._json_output import json_output_schema, shape_json_text
from harness.simulator._runner import ScriptExhausted, ScriptRunner
from harness.simulator._script import ErrorReply, Reply, Script, load_script
from harness.simulator._wire import Answer, Ids, json_answer, request_seed

__all__ = ["SEED_HEADER", "ReceivedRequest", "SimulatorServer"]

# One INFO line per request: the path, the status and the rule or turn that answered.
_log = logging.getLogger("harness.simulator")
# Names the ids of an answer in place of the body's digest (see SimulatorServer.handle).
SEED_HEADER = "x-harness-seed"
_SEED = re.compile(r"[0-9a-f]{12}")


class _Api(Protocol):
    """What each wire's API answers with (``harness.wires.<name>.simulator``'s ``route``)."""

    def parse(self, body: Any) -> Conversation: ...

    def answer(self, reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer: ...

    def error_answer(self, error: ErrorReply | ApiError | str, status: int = 400) -> Answer: ...


def _served_paths(entry: Wire) -> tuple[str, ...]:
    """The registry's paths of ``entry``, and without the version a base URL may carry."""
    prefix = entry.simulator_base_path
    bare = tuple(p.removeprefix(prefix) for p in entry.paths if prefix and p.startswith(prefix))
    return entry.paths + bare


def _names_the_model(entry: Wire) -> bool:
    return any("{" in path for path in entry.paths)


_SERVED = tuple(w for w in ready_wires() if w.parts.simulator is not None)
# A wire on fixed paths is served on exactly those; one whose paths name the model
# (``.../models/{model}:...``) on any path of its, told by its ending.
_ROUTES: dict[str, Wire] = {
    path: entry for entry in _SERVED if not _names_the_model(entry) for path in _served_paths(entry)
}


def _route(path: str) -> tuple[_Api, str] | None:
    entry = _ROUTES.get(path)
    if entry is None:
        entry = wire_for_path(path)
        if entry is None or entry not in _SERVED or not _names_the_model(entry):
            return None
    # The renderer lives in the wire's package, a room above: by the registry's dotted path.
    module = load_part(entry, "simulator")
    api: _Api | None = module.route(path)
    return None if api is None else (api, module.REQUEST_ID_HEADER)


@dataclass(frozen=True)
class ReceivedRequest:
    """One request the simulator received (``body`` is None if it was not JSON)."""

    method: str
    path: str
    body: Any
    status: int


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # idle keep-alive connections must not block stop()

    def __init__(self, address: tuple[str, int], owner: SimulatorServer) -> None:
        self.owner = owner
        self.connections: set[socket.socket] = set()
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: avoid 40 ms stalls
    server: _Server
    timeout = 30

    def setup(self) -> None:
        super().setup()
        self.server.connections.add(self.connection)

    def finish(self) -> None:
        self.server.connections.discard(self.connection)
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:
        return None  # keep test output quiet

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if self._addressed_here():
            seed = self.headers.get(SEED_HEADER)
            self._send(*self.server.owner.handle(self.path, raw, seed=seed))

    def do_GET(self) -> None:
        if self._addressed_here():
            self._send(
                json_answer({"error": {"message": "Not found", "type": "not_found_error"}}, 404),
                "x-request-id",
            )

    def do_HEAD(self) -> None:
        # A client's connectivity probe (Claude Code's HEAD on the API root): the API is up.
        if self._addressed_here():
            self.send_response(200)
            self.send_header("content-length", "0")
            self.send_header(SIMULATOR_HEADER, "1")
            self.end_headers()
            _log.info("HEAD %s -> 200, a connectivity probe", self.path)

    def do_CONNECT(self) -> None:
        self._addressed_here()  # a tunnel is always for another host

    def _addressed_here(self) -> bool:
        """Whether the request names this server; if not, it is answered 421 here."""
        authority, path = split_target(self.path)
        if authority is None:
            authority = self.headers.get("host")
        host, port = str(self.server.server_address[0]), int(self.server.server_address[1])
        foreign = foreign_target(authority, (host, port))
        if self.command != "CONNECT" and foreign is None:
            self.path = path
            return True
        foreign = foreign or authority or "another host"
        here = f"{host}:{port}"
        message = (
            f"misdirected request: the harness simulator at {here} answers only requests "
            f"addressed to it, and this one is for {foreign}; point the client's base_url at "
            f"http://{here} and do not use the simulator as a proxy (check HTTPS_PROXY/HTTP_PROXY)"
        )
        _log.info("%s %s -> 421, addressed to %s", self.command, self.path, foreign)
        answer = json_answer({"error": {"message": message, "type": "misdirected"}}, 421)
        if self.command == "CONNECT":  # nothing may follow on a refused tunnel
            self.close_connection = True
            answer = replace(answer, headers=(("connection", "close"), *answer.headers))
        self._send(answer, "x-request-id")
        return False

    def _send(self, answer: Answer, id_header: str) -> None:
        body = answer.body
        gzipped = self.server.owner.gzip and "gzip" in (self.headers.get("accept-encoding") or "")
        if gzipped:
            body = gzip.compress(body)
        self.send_response(answer.status)
        self.send_header("content-type", answer.content_type)
        self.send_header("content-length", str(len(body)))
        self.send_header(SIMULATOR_HEADER, "1")
        for name, value in answer.headers:
            self.send_header(name, value)
        if gzipped:
            self.send_header("content-encoding", "gzip")
        self.end_headers()
        self.wfile.write(body)


def _bind(address: tuple[str, int], owner: SimulatorServer) -> _Server:
    """The listening server, or a one-line ConfigurationError on a bad or busy port."""
    host, port = address
    where = f"{host}:{port}"
    try:
        return _Server(address, owner)
    except OverflowError:
        raise ConfigurationError(
            f"cannot listen on {where}: the port must be 0-65535 (0 picks a free one)"
        ) from None
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is already in use; stop what holds it or choose another port"
        elif exc.errno == errno.EACCES:
            reason = "permission denied (ports below 1024 need privileges); choose another port"
        else:
            reason = f"{exc.strerror or exc}; check the host and port"
        raise ConfigurationError(
            f"cannot listen on {where}: {reason} (port 0 picks a free one)"
        ) from None


def _with_request_id(answer: Answer, header: str, seed: str) -> Answer:
    return replace(answer, headers=((header, f"req_sim{seed}"), *answer.headers))


class SimulatorServer:
    """A local OpenAI- and Anthropic-compatible API answering from a script.

    Serves ``POST /v1/chat/completions``, ``POST /v1/responses`` and
    ``POST /v1/messages`` (JSON and SSE streaming), validates requests as the
    real APIs do (400 with the real error shape), and marks every answer with
    an ``x-harness-simulator: 1`` header. It holds conversations as the real
    servers do (Responses' ``previous_response_id``, Anthropic's ``thread``),
    per instance and bounded.

    Args:
        script: a :class:`Script`, a mapping, or the path of a YAML/JSON script.
        host: interface to bind; keep it loopback.
        port: TCP port, 0 for any free one.
        gzip: compress answers when the client accepts gzip (to test decoding).
        log_bodies: a file to which each request is appended as one JSON line
            (method, path, status, body): what a process under test really sent.
    """

    def __init__(
        self,
        script: Script | Mapping[str, Any] | str | os.PathLike[str],
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        gzip: bool = False,
        log_bodies: str | os.PathLike[str] | None = None,
    ) -> None:
        self.script = load_script(script)
        self.gzip = gzip
        self.log_bodies = log_bodies
        self._address = (host, port)
        self._runner = ScriptRunner(self.script)
        self._held = HeldConversations()
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._url: str | None = None
        self.hits = 0
        self.requests: list[ReceivedRequest] = []

    @property
    def url(self) -> str:
        """``http://host:port`` it serves (or served) at; SDK base URLs add ``/v1``."""
        if self._url is None:
            raise RuntimeError("the simulator has not been started; call start() first")
        return self._url

    def start(self) -> SimulatorServer:
        """Bind and serve in a background thread; returns self."""
        if self._server is None:
            self._server = _bind(self._address, self)
            host, port = self._server.server_address[:2]
            self._url = f"http://{host!s}:{port}"
            self._thread = threading.Thread(
                target=self._server.serve_forever,
                args=(0.05,),
                name="harness-simulator",
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        for connection in list(server.connections):
            with contextlib.suppress(OSError):  # already closed by the client
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def handle(self, target: str, raw: bytes, *, seed: str | None = None) -> tuple[Answer, str]:
        """Answer one POST; returns the answer and the name of the request-id header.

        ``seed`` (the ``x-harness-seed`` header) names the answer's ids in place
        of the body's digest: ``harness proxy`` sends the digest of the body with
        its per-run values pinned, so a re-recorded run gets the same ids.
        """
        path = target.split("?", 1)[0]
        with self._lock:
            self.hits += 1
        seed = seed if seed and _SEED.fullmatch(seed) else request_seed(raw)
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        route = _route(path)
        if route is None:
            answer = json_answer(
                {"error": {"message": f"Unknown path {path}", "type": "not_found_error"}}, 404
            )
            self._remember(path, body, answer)
            _log.info("POST %s -> 404, not an API path the simulator serves", path)
            return _with_request_id(answer, "x-request-id", seed), "x-request-id"
        api, id_header = route
        answered, chosen = self._answer(api, body, Ids(seed))
        answer = _with_request_id(answered, id_header, seed)
        self._remember(path, body, answer)
        _log.info("POST %s -> %d, %s", path, answer.status, chosen)
        return answer, id_header

    def _answer(self, api: _Api, body: Any, ids: Ids) -> tuple[Answer, str]:
        try:
            body = self._held.resume(api, body)
            conversation = api.parse(body)
            reply, chosen = self._runner.choose(conversation)
        except ApiError as exc:
            return api.error_answer(exc), f"invalid request: {exc}"
        except ScriptExhausted as exc:
            return api.error_answer(str(exc)), "no rule applied and no turn left"
        if reply.error is not None:
            return api.error_answer(reply.error), f"answered by {chosen} (a scripted error)"
        schema = json_output_schema(body)
        if schema is not None and reply.text and not reply.tool_calls:
            reply = reply.model_copy(update={"text": shape_json_text(reply.text, schema)})
        model = self.script.model or conversation.model
        answer = api.answer(reply, conversation, ids, model)
        self._held.keep(api, body, reply, conversation, ids.seed)
        return answer, f"answered by {chosen}"

    def _remember(self, path: str, body: Any, answer: Answer) -> None:
        with self._lock:
            self.requests.append(ReceivedRequest("POST", path, body, answer.status))
            if self.log_bodies is not None:
                line = {"method": "POST", "path": path, "status": answer.status, "body": body}
                with open(self.log_bodies, "a", encoding="utf-8") as log:
                    log.write(json.dumps(line, ensure_ascii=False) + "\n")
