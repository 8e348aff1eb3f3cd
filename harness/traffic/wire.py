"""What one model exchange says, whatever its wire format: the values the traffic trace reads.

Each wire format's traffic reader lives in its own package
(``harness.wires.<name>.traffic``, the registry's ``parts.traffic``) and turns
request and response JSON into these values; :func:`wire_for` picks the wire
from the request path.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from harness.core.wires import ready_wires, wire_for_path
from harness.traffic.sse import SseEvent

__all__ = [
    "STABLE_JSON",
    "ModelRequest",
    "ModelResponse",
    "Readers",
    "TokenUsage",
    "ToolAsk",
    "ToolResult",
    "Wire",
    "as_text",
    "digest",
    "error_of",
    "json_object",
    "mapping",
    "thread_key",
    "wire_for",
]

# A wire's name in the registry (``harness.core.wires``): openai, anthropic, ...
Wire = str

# The tool.call hashes harness's own executor writes: 16 hex digits of BLAKE2b
# over the arguments as sorted, non-ASCII-escaped JSON, so a traffic trace and a
# harness trace of the same run can be compared hash for hash.
STABLE_JSON: Final = json.JSONEncoder(sort_keys=True, ensure_ascii=False, default=str).encode


def digest(text: str) -> str:
    """16 hex digits identifying ``text``, as harness's ``*_hash`` attributes do."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


@dataclass(frozen=True)
class ToolAsk:
    """A tool call the model asked for: its id, the tool, the arguments as sent (JSON text).

    ``item_id`` is the Responses API's output item id (``fc_...``), which some
    clients send back as the ``call_id`` of the result.
    """

    call_id: str
    name: str
    arguments: str
    item_id: str | None = None

    @property
    def ids(self) -> tuple[str, ...]:
        """The ids a result may answer this call by."""
        return (
            (self.call_id,)
            if self.item_id in (None, self.call_id)
            else (
                self.call_id,
                str(self.item_id),
            )
        )


@dataclass(frozen=True)
class ToolResult:
    """A tool result the agent sent back. ``is_error`` is None where the wire has no flag."""

    call_id: str
    name: str | None
    output: str
    is_error: bool | None = None


@dataclass(frozen=True)
class TokenUsage:
    """Usage normalised as harness's ``Usage``: ``input`` counts cache reads and writes.

    ``reasoning`` is None when the wire does not report it apart.
    """

    input: int = 0
    output: int = 0
    cached_input: int = 0
    cache_write_input: int = 0
    reasoning: int | None = None


@dataclass(frozen=True)
class ModelRequest:
    """The parts of a request body the trace needs."""

    wire: Wire
    model: str | None
    stream: bool
    messages: tuple[Any, ...]
    tools: tuple[str, ...]
    tool_choice: str | None
    results: tuple[ToolResult, ...]
    history: Mapping[str, ToolAsk]
    thread: str
    agent: str
    prompt: str | None
    previous_response_id: str | None = None
    # Instructions sent beside the messages (Messages' ``system``, Responses'
    # ``instructions``); Chat Completions sends them as a message.
    system: str | None = None
    # Tools the request's definitions mark as output tools whatever their name
    # (``harness.core.output_tools.declared_output_tools``), set by ``exchanges``.
    output_tools: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ModelResponse:
    """The parts of a response (JSON or a reassembled stream) the trace needs."""

    status: int
    model: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    stop_reason: str | None = None
    asks: tuple[ToolAsk, ...] = ()
    text: str = ""
    response_id: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    server_tool_calls: int = 0

    @property
    def failed(self) -> bool:
        return self.status >= 400 or self.error_type is not None


# A wire's readers of one call: the request body, a JSON answer (status, the
# object or None, the raw bytes) and an event-stream answer.
Readers = tuple[
    Callable[[dict[str, Any]], ModelRequest],
    Callable[[int, dict[str, Any] | None, bytes], ModelResponse],
    Callable[[int, list[SseEvent]], ModelResponse],
]

# The wires this room reads (each by its package's traffic part); the registry tells
# them by their path endings.
_READ: Final[frozenset[str]] = frozenset(w.name for w in ready_wires())


def wire_for(method: str, url: str) -> Wire | None:
    """The wire format of a model request by its path, or None for other traffic."""
    if method.upper() != "POST":
        return None
    entry = wire_for_path(urlsplit(url).path)
    return entry.name if entry is not None and entry.name in _READ else None


def json_object(body: bytes) -> dict[str, Any] | None:
    """``body`` parsed as a JSON object, or None (empty, not JSON, not an object)."""
    try:
        value = json.loads(body)
    except ValueError:  # JSONDecodeError and UnicodeDecodeError
        return None
    return value if isinstance(value, dict) else None


def mapping(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one (a field of the wrong type)."""
    return value if isinstance(value, dict) else {}


def as_text(content: Any) -> str:
    """The text of a message content: a string, or the text of its parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict):
                text = part.get("text", part.get("output", part.get("content")))
                parts.append(as_text(text) if not isinstance(text, str) else text)
        return "".join(parts)
    return STABLE_JSON(content)


def thread_key(*leading: Any) -> str:
    """A digest of a request's opening context (system text, first message), which
    every request of one conversation repeats."""
    return digest(STABLE_JSON(list(leading)))


def error_of(status: int, data: Mapping[str, Any] | None, raw: bytes) -> tuple[str, str]:
    """``(error_type, message)`` of an error body (OpenAI and Anthropic shape alike)."""
    error = data.get("error") if data is not None else None
    if isinstance(error, Mapping):
        kind = error.get("type") or error.get("code") or f"http_{status}"
        return str(kind), str(error.get("message") or "")
    if isinstance(error, str):
        return f"http_{status}", error
    text = raw.decode("utf-8", "replace").strip()
    return f"http_{status}", text[:500]
