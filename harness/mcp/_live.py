"""A live MCP server's answers against its recording (``--harness-tools live``).

The ``mcp_cassette`` stand-ins relay an agent to the real server in this mode;
a :class:`LiveComparer` watches the messages passing each way. Each
``tools/call`` the client sends is looked up in the server's recorded session
as a replay would (same method and parameters, ``_meta`` aside, the first
unused match first), and the live answer is compared with the recorded one,
scrubbed of secrets as the cassette was. A difference is a :class:`ResultChange`:
the server, the tool, its arguments, both answers as text. A call the
recording does not hold has nothing to differ from, and is left alone.

Only the standard library and harness's cassette code are imported: the stdio
relay (``python -m harness.mcp.replay --live``) loads this module.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from harness.mcp._cassette import MISS_CODE, McpServerTape, TapePlayer
from harness.recording.scrub import scrub_json

__all__ = ["LiveComparer", "RelayObserver", "ResultChange", "shown_answers"]


class RelayObserver(Protocol):
    """What a relay between a client and a real server reports: every JSON-RPC
    message, each way, as it passes (a :class:`TapeRecorder`, a comparer)."""

    def client_sent(self, message: dict[str, Any]) -> None: ...

    def server_sent(self, message: dict[str, Any]) -> None: ...


@dataclass(frozen=True, slots=True)
class ResultChange:
    """A live ``tools/call`` answer unlike the recorded answer to the same request.

    Attributes:
        server: the server's name in the cassette.
        tool: the tool's name on that server.
        arguments: the call's arguments.
        recorded: the recorded answer, as text (:func:`shown_answers`).
        live: the live answer, as text.
    """

    server: str
    tool: str
    arguments: Any
    recorded: str
    live: str

    def to_json(self) -> str:
        """One JSON line, for the file a stdio relay reports through."""
        return json.dumps(asdict(self), ensure_ascii=False, default=str)

    @classmethod
    def from_json(cls, line: str) -> ResultChange:
        data = json.loads(line)
        return cls(
            str(data["server"]),
            str(data["tool"]),
            data.get("arguments"),
            str(data["recorded"]),
            str(data["live"]),
        )


class LiveComparer:
    """Compares each live ``tools/call`` answer of one server with its recording.

    Thread-safe: an HTTP relay reports from a thread per request.
    """

    def __init__(
        self,
        server: str,
        tape: McpServerTape,
        on_change: Callable[[ResultChange], None] | None = None,
        on_call: Callable[[], None] | None = None,
    ) -> None:
        self.server = server
        self.changes: list[ResultChange] = []
        self.calls = 0
        # The player finds the recorded answer to a request as a replay would.
        self._player = TapePlayer(server, tape)
        self._pending: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = {}
        self._on_change = on_change
        self._on_call = on_call
        self._lock = threading.Lock()

    def client_sent(self, message: dict[str, Any]) -> None:
        if message.get("method") != "tools/call" or "id" not in message:
            return
        params = message.get("params")
        replies = self._player.answer(message)
        recorded = replies[-1] if replies else None
        if recorded is not None and (recorded.get("error") or {}).get("code") == MISS_CODE:
            recorded = None  # not recorded: nothing to differ from
        with self._lock:
            self._pending[_id_key(message["id"])] = (
                params if isinstance(params, dict) else {},
                recorded,
            )

    def server_sent(self, message: dict[str, Any]) -> None:
        if "method" in message or "id" not in message:
            return
        with self._lock:
            pending = self._pending.pop(_id_key(message["id"]), None)
            if pending is None:
                return
            self.calls += 1
        if self._on_call is not None:
            self._on_call()
        params, recorded = pending
        if recorded is None:
            return
        then, now = _answer(recorded), _answer(scrub_json(message))
        if _same(then, now):
            return
        shown_then, shown_now = shown_answers(then, now)
        change = ResultChange(
            self.server,
            str(params.get("name", "")),
            params.get("arguments") or {},
            shown_then,
            shown_now,
        )
        with self._lock:
            self.changes.append(change)
        if self._on_change is not None:
            self._on_change(change)


def _id_key(request_id: Any) -> str:
    return json.dumps(request_id, sort_keys=True, default=str)


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply's answer as compared: its result (``_meta`` aside) or its error."""
    if reply.get("error") is not None:
        error = reply["error"]
        return {"error": {"code": error.get("code"), "message": error.get("message")}}
    result = reply.get("result") or {}
    return {"result": {k: v for k, v in result.items() if k != "_meta"}}


def _same(a: Any, b: Any) -> bool:
    # As JSON: false is not 0, nor 1.0 1, as the replay's match key sees them.
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)


def shown_answers(recorded: dict[str, Any], live: dict[str, Any]) -> tuple[str, str]:
    """Two answers as the report shows them: a result's text content first (``[error]``
    before it for an error result), then each other part in which the two differ
    (``structuredContent: {...}``, a non-text content item), so the diff shows
    what changed; an error as its code and message."""
    return _shown(recorded, live), _shown(live, recorded)


def _shown(answer: dict[str, Any], other: dict[str, Any]) -> str:
    if "error" in answer:
        error = answer["error"]
        return f"JSON-RPC error {error.get('code')}: {error.get('message')}"
    result = answer.get("result") or {}
    against = other.get("result") or {}
    given = result.get("content")
    content: list[Any] = given if isinstance(given, list) else []
    lines = [
        str(item["text"])
        for item in content
        if isinstance(item, dict) and item.get("type") == "text" and "text" in item
    ]
    texts = [i for i in content if isinstance(i, dict) and i.get("type") == "text"]
    others = [i for i in content if i not in texts]
    lines += [f"content: {_dumped(item)}" for item in others]
    text = "\n".join(lines)
    for key in sorted(set(result) - {"content", "isError"}):
        if key not in against or not _same(result[key], against[key]):
            if key == "structuredContent" and _same(result[key], {"result": text}):
                continue  # a text result's own copy (FastMCP's wrapped return value)
            lines.append(f"{key}: {_dumped(result[key])}")
    text = "\n".join(lines)
    return f"[error] {text}" if result.get("isError") else text


def _dumped(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
