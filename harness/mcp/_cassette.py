"""MCP cassettes: each server's JSON-RPC exchange, recorded once and replayed offline.

One JSON file per test, beside the model's cassette (``<test>.mcp.json``)::

    {"format": "harness-mcp-cassette", "version": 1, "recorded_at": "2026-...Z",
     "servers": {"files": {"transport": "stdio", "target": "python",
       "exchanges": [
         {"method": "initialize", "params": {...}, "result": {...}, "server_messages": []},
         {"method": "notifications/initialized", "notification": true},
         {"method": "tools/list", "result": {"tools": [...]}},
         {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 1}},
          "result": {"content": [...], "isError": false},
          "server_messages": [{"jsonrpc": "2.0", "method": "notifications/progress", ...}]}]}}}

``target`` is the server's program (or its URL without query): never its
arguments, which may hold a key. An exchange is one message the client sent (a
request, or a notification that gets no answer), the answer (``result`` or a
JSON-RPC ``error``) and whatever the server sent while it was pending
(notifications, its own requests). Request ids are not stored: a replay answers
with the id the client used.

A replayed request is matched to the first unused recorded one with the same
method and parameters (``_meta`` aside; ``initialize`` by method alone, since
its parameters name the client's SDK version), then to a used one (a repeated
``tools/list``). No match is a *miss*: the server's answer is a JSON-RPC error
naming it, and the miss (the request, and the nearest recorded one with where it
differs) is kept for the test to fail with. Secrets are scrubbed before a cassette
is written (:func:`harness.recording.scrub.scrub_json`), and from a request before
it is matched, so a key in a tool result never reaches the file and the replay
still matches.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.core.errors import CassetteError
from harness.recording.scrub import scrub_json

__all__ = [
    "CASSETTE_FORMAT",
    "MISS_CODE",
    "McpCassette",
    "McpCassetteMiss",
    "McpExchange",
    "McpMiss",
    "McpServerTape",
    "TapePlayer",
    "TapeRecorder",
    "load_cassette",
    "mcp_cassette_path",
    "mcp_cassettes_from",
    "now_stamp",
    "numbered_mcp_cassette",
    "save_cassette",
]

CASSETTE_FORMAT: Final = "harness-mcp-cassette"
# The JSON-RPC error code of a replayed request no recording answers.
MISS_CODE = -32099
# Compared by method alone: the parameters name the client, not the question.
_METHOD_ONLY = frozenset({"initialize"})


class McpExchange(BaseModel):
    """One message the client sent and what came back before its answer."""

    model_config = ConfigDict(extra="forbid")

    method: str
    params: dict[str, Any] | None = None
    notification: bool = False
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    server_messages: list[dict[str, Any]] = Field(default_factory=list)


class McpServerTape(BaseModel):
    """One server's session, in the order the client sent its messages."""

    model_config = ConfigDict(extra="forbid")

    transport: Literal["stdio", "http"]
    target: str = ""
    exchanges: list[McpExchange] = Field(default_factory=list)


class McpCassette(BaseModel):
    """A test's MCP recording: every server it used, by the name it has in the config."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["harness-mcp-cassette"] = CASSETTE_FORMAT
    version: Literal[1] = 1
    recorded_at: str = ""
    servers: dict[str, McpServerTape] = Field(default_factory=dict)


def mcp_cassette_path(model_cassette: Path, index: int = 1) -> Path:
    """The ``index``-th (from 1) MCP cassette beside a model cassette: ``<name>.mcp.json``,
    then ``<name>-2.mcp.json``... Only the model cassette's suffix is dropped: a test
    name may hold dots (a parametrize id ``1.5``)."""
    name = model_cassette.name
    for suffix in _MODEL_SUFFIXES:
        if name.endswith(suffix):
            name = name.removesuffix(suffix)
            break
    return numbered_mcp_cassette(model_cassette.with_name(name + ".mcp.json"), index)


def numbered_mcp_cassette(first: Path, index: int) -> Path:
    """A test's ``index``-th (from 1) MCP cassette, its first being ``first``."""
    if index <= 1:
        return first
    return first.with_name(first.name.removesuffix(".mcp.json") + f"-{index}.mcp.json")


def mcp_cassettes_from(first: Path) -> list[Path]:
    """``first`` and the numbered cassettes after it that exist (``-2``, ``-3``...), in order."""
    found: list[Path] = []
    while numbered_mcp_cassette(first, len(found) + 1).is_file():
        found.append(numbered_mcp_cassette(first, len(found) + 1))
    return found


_MODEL_SUFFIXES = (".yaml", ".yml", ".json")


def load_cassette(path: Path) -> McpCassette:
    """Read and validate ``path``.

    Raises:
        CassetteError: missing, unreadable, not JSON, or not an MCP cassette.
    """
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise CassetteError(
            f"no MCP cassette at {path}; record it once with --record-mode=once "
            "(the MCP servers then run live)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"MCP cassette {path} cannot be read: {exc}") from None
    try:
        return McpCassette.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "file"
        raise CassetteError(
            f"MCP cassette {path} is not valid ({where}: {first['msg']}); re-record it with "
            "--record-mode=rewrite"
        ) from None


def save_cassette(cassette: McpCassette, path: Path) -> None:
    """Write ``cassette`` (secrets scrubbed) to ``path`` atomically: temp file + rename."""
    data = scrub_json(cassette.model_dump(mode="json", exclude_defaults=False))
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def now_stamp() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class TapeRecorder:
    """Builds one server's tape from the messages passing each way (thread-safe)."""

    def __init__(self, transport: Literal["stdio", "http"], target: str) -> None:
        self.tape = McpServerTape(transport=transport, target=target)
        self._pending: dict[Any, McpExchange] = {}
        self._lock = threading.Lock()

    def client_sent(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if not isinstance(method, str):
            return  # the client's answer to a server request: part of no exchange
        exchange = McpExchange(
            method=method, params=message.get("params"), notification="id" not in message
        )
        with self._lock:
            self.tape.exchanges.append(exchange)
            if "id" in message:
                self._pending[message["id"]] = exchange

    def server_sent(self, message: dict[str, Any]) -> None:
        with self._lock:
            if "method" not in message and "id" in message:
                exchange = self._pending.pop(message["id"], None)
                if exchange is not None:
                    exchange.result = message.get("result")
                    exchange.error = message.get("error")
                return
            waiting = list(self._pending.values())
            target = waiting[-1] if waiting else None
            if target is None and self.tape.exchanges:
                target = self.tape.exchanges[-1]
            if target is not None:
                target.server_messages.append(message)


@dataclass(frozen=True, slots=True)
class McpMiss:
    """A replayed request no recording answers, and the nearest recorded one."""

    server: str
    method: str
    params: dict[str, Any] | None
    nearest: McpExchange | None
    difference: str | None
    cassette: Path | None = None

    def __str__(self) -> str:
        asked = _shown(self.method, self.params)
        where = f"MCP cassette {self.cassette}" if self.cassette else "the MCP cassette"
        lines = [f"{where} has no answer for server {self.server!r}: {asked}"]
        if self.nearest is None:
            lines.append(f"  nothing with method {self.method!r} was recorded for this server")
        else:
            lines.append(f"  nearest recorded: {_shown(self.nearest.method, self.nearest.params)}")
            if self.difference:
                lines.append(f"  differs at {self.difference}")
        lines.append("  re-record it with --record-mode=rewrite if the change is intended")
        return "\n".join(lines)


class McpCassetteMiss(CassetteError):
    """Replayed MCP requests no cassette answers (each one's ``McpMiss`` in ``misses``)."""

    def __init__(self, misses: list[McpMiss]) -> None:
        super().__init__("\n".join(str(miss) for miss in misses))
        self.misses = misses


@dataclass
class TapePlayer:
    """Answers a client from one server's tape, as the server answered when recorded."""

    server: str
    tape: McpServerTape
    cassette: Path | None = None
    misses: list[McpMiss] = field(default_factory=list)
    _used: set[int] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    # ``tools/call`` requests answered from the tape (misses aside), for the eval row.
    calls: int = 0
    # Each recorded exchange's match key, made once (scrubbing a request is the cost).
    _keys: list[str] | None = None

    def answer(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        """The messages the server sends back for the client's ``message``, in order."""
        method = message.get("method")
        if not isinstance(method, str):
            return []  # the client answering a replayed server request
        params = message.get("params")
        request_id = message.get("id")
        with self._lock:
            index = self._match(method, params, notification=request_id is None)
            if index is None:
                if request_id is None:
                    return []  # an unrecorded notification needs no answer
                miss = self._miss(method, params)
                self.misses.append(miss)
                return [_error(request_id, MISS_CODE, str(miss))]
            self._used.add(index)
            self.calls += method == "tools/call"
        exchange = self.tape.exchanges[index]
        sent = [dict(m) for m in exchange.server_messages]
        if request_id is None:
            return sent
        if exchange.error is not None:
            return [*sent, {"jsonrpc": "2.0", "id": request_id, "error": exchange.error}]
        return [*sent, {"jsonrpc": "2.0", "id": request_id, "result": exchange.result or {}}]

    def _match(self, method: str, params: Any, *, notification: bool) -> int | None:
        if self._keys is None:
            self._keys = [_key(e.method, e.params) for e in self.tape.exchanges]
        # Most requests hold no secret: their raw key matches, and the scan that
        # scrubbing needs (a fifth of a replayed call) runs only when it does not.
        raw = _key(method, params, scrub=False)
        found = self._find(raw, notification)
        if found is not None:
            return found
        key = _key(method, params)
        return None if key == raw else self._find(key, notification)

    def _find(self, key: str, notification: bool) -> int | None:
        assert self._keys is not None
        reused: int | None = None
        for index, exchange in enumerate(self.tape.exchanges):
            if exchange.notification != notification or self._keys[index] != key:
                continue
            if index not in self._used:
                return index
            reused = index
        return reused

    def _miss(self, method: str, params: Any) -> McpMiss:
        asked = _comparable(params)
        best: tuple[int, McpExchange, str | None] | None = None
        for exchange in self.tape.exchanges:
            if exchange.method != method or exchange.notification:
                continue
            where = first_difference(_comparable(exchange.params), asked)
            score = _distance(_comparable(exchange.params), asked)
            if best is None or score < best[0]:
                best = (score, exchange, where)
        return McpMiss(
            self.server,
            method,
            params if isinstance(params, dict) else None,
            best[1] if best else None,
            best[2] if best else None,
            self.cassette,
        )


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _comparable(params: Any, *, scrub: bool = True) -> Any:
    """Parameters as matching sees them: scrubbed as recorded, ``_meta`` dropped."""
    if not isinstance(params, dict):
        return params
    kept = {k: v for k, v in params.items() if k != "_meta"}
    return scrub_json(kept) if scrub else kept


def _key(method: str, params: Any, *, scrub: bool = True) -> str:
    if method in _METHOD_ONLY:
        return method
    return method + json.dumps(_comparable(params, scrub=scrub), sort_keys=True, default=str)


def first_difference(recorded: Any, asked: Any, path: str = "params") -> str | None:
    """Where two JSON values first differ, as ``params.arguments.text: 'a' != 'b'``."""
    if isinstance(recorded, dict) and isinstance(asked, dict):
        for key in sorted(set(recorded) | set(asked), key=str):
            if key not in recorded:
                return f"{path}.{key}: not recorded, now {_brief(asked[key])}"
            if key not in asked:
                return f"{path}.{key}: recorded {_brief(recorded[key])}, now absent"
            found = first_difference(recorded[key], asked[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(recorded, list) and isinstance(asked, list):
        for index, (a, b) in enumerate(zip(recorded, asked, strict=False)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        if len(recorded) != len(asked):
            return f"{path}: recorded {len(recorded)} items, now {len(asked)}"
        return None
    if not _same_leaf(recorded, asked):
        return f"{path}: recorded {_brief(recorded)}, now {_brief(asked)}"
    return None


def _same_leaf(recorded: Any, asked: Any) -> bool:
    """Equal as JSON, as the match key compares them: ``false`` is not ``0``, nor
    ``1.0`` ``1``, nor ``-0.0`` ``0.0``, though Python finds each pair equal."""
    try:
        return json.dumps(recorded, sort_keys=True) == json.dumps(asked, sort_keys=True)
    except (TypeError, ValueError):
        return bool(recorded == asked)


def _distance(recorded: Any, asked: Any) -> int:
    """A rough count of differing leaves, to pick the nearest recorded request."""
    if isinstance(recorded, dict) and isinstance(asked, dict):
        keys = set(recorded) | set(asked)
        return sum(_distance(recorded.get(k), asked.get(k)) for k in keys)
    if isinstance(recorded, list) and isinstance(asked, list):
        longest = max(len(recorded), len(asked))
        padded = zip(
            recorded + [None] * (longest - len(recorded)),
            asked + [None] * (longest - len(asked)),
            strict=True,
        )
        return sum(_distance(a, b) for a, b in padded)
    return 0 if recorded == asked else 1


def _brief(value: Any, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _shown(method: str, params: Any) -> str:
    if not isinstance(params, dict):
        return method
    if method == "tools/call":
        return f"tools/call {params.get('name')!r} {_brief(params.get('arguments') or {}, 120)}"
    return f"{method} {_brief(params, 120)}"
