"""The traffic trace: a run rebuilt from its HTTP exchanges with the model API.

An agent that is not harness's runtime (a raw ``openai`` / ``anthropic`` loop,
pydantic-ai, the OpenAI Agents SDK) leaves no harness trace, but its traffic
says what happened: each model request is a step, its response names the tool
calls asked for, and the next request carries their results. From that this
module builds a ``TraceTree`` with the span kinds and attribute names of
harness's own traces, so ``assert_trace_shape``, ``trace.one(...)``, golden
outlines and ``harness view`` work on it unchanged::

    agent.run
      agent.step
        llm.call
        tool.call read_file
      agent.step
        llm.call

Every wire of the registry is read, streamed or not, by its own package's
traffic reader (``harness.wires.<name>.traffic``); how
calls are placed (conversations, sub-agents) is in ``threads``, the
spans and their attributes in ``spans``. Other exchanges (telemetry,
``GET /models``) are skipped and counted on the root as ``other_exchanges``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from harness.core.output_tools import declared_output_tools, may_declare_output_tools
from harness.core.wire_parts import load_part
from harness.tracing import TraceMode, TraceTree
from harness.traffic._spans import build_tree
from harness.traffic._threads import Call, place_calls
from harness.traffic.attributes import capture_mode, payload_limit
from harness.traffic.sent import sent_from_body
from harness.traffic.sse import is_event_stream, parse_sse
from harness.traffic.wire import Readers, json_object, wire_for

if TYPE_CHECKING:
    from harness.recording import StoredCassette

__all__ = [
    "HttpExchange",
    "exchanges_from_cassette",
    "trace_from_cassette",
    "trace_from_exchanges",
]

_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class HttpExchange:
    """One HTTP request and its response, bodies as sent and received.

    Bodies may still carry their ``Content-Encoding`` (gzip, deflate, br, zstd):
    they are decoded before reading. Header names are matched case-insensitively.
    """

    method: str
    url: str
    request_headers: Mapping[str, str]
    request_body: bytes
    status: int
    response_headers: Mapping[str, str]
    response_body: bytes


def _readers(wire: str | None, method: str, url: str) -> Readers | None:
    if wire is None:
        return None
    # Each wire's readers live in its own package (``harness.wires``), a room above
    # this one: found by the registry's dotted path; it has ``is_call`` and ``readers``.
    module = load_part(wire, "traffic")
    if not module.is_call(method, url):
        return None
    found: Readers = module.readers(url)
    return found


def _header(headers: Mapping[str, str], name: str) -> str | None:
    return next((str(v) for k, v in headers.items() if k.lower() == name), None)


def _read_call(index: int, exchange: HttpExchange) -> Call | None:
    from harness.recording import decode_content  # lazy: yaml and the decoders

    wire = wire_for(exchange.method, exchange.url)
    readers = _readers(wire, exchange.method, exchange.url)
    if wire is None or readers is None:
        return None
    raw = decode_content(exchange.request_body, exchange.request_headers)
    data = json_object(raw)
    if data is None:
        return None
    read_request, read_json, read_stream = readers
    body = decode_content(exchange.response_body, exchange.response_headers)
    kind = _header(exchange.response_headers, "content-type")
    if exchange.status < 400 and is_event_stream(kind, body):
        response = read_stream(exchange.status, parse_sse(body))
    else:
        response = read_json(exchange.status, json_object(body), body)
    request = read_request(data)
    if may_declare_output_tools(raw):  # a framework's marker: read the tool definitions
        tools = sent_from_body(wire, data, exchange.url).tools
        declared = declared_output_tools((tool.name, tool.description) for tool in tools)
        request = replace(request, output_tools=declared)
    return Call(index, request, response)


def _origin(exchanges: Sequence[HttpExchange]) -> datetime:
    for exchange in exchanges:
        value = _header(exchange.response_headers, "date")
        if value:
            try:
                return parsedate_to_datetime(value).astimezone(UTC)
            except (TypeError, ValueError):
                continue
    return _EPOCH


def _trace_id(exchanges: Sequence[HttpExchange]) -> str:
    # The same traffic gives the same id, so two builds of one cassette compare equal.
    hasher = hashlib.blake2b(digest_size=16)
    for exchange in exchanges:
        for part in (exchange.method, exchange.url, str(exchange.status)):
            hasher.update(part.encode("utf-8", "surrogatepass") + b"\0")
        hasher.update(exchange.request_body + b"\0" + exchange.response_body + b"\0")
    return hasher.hexdigest()


def trace_from_exchanges(
    exchanges: Sequence[HttpExchange],
    *,
    name: str = "agent.run",
    mode: TraceMode | None = None,
    max_payload_chars: int | None = None,
    started_at: datetime | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> TraceTree:
    """The traffic trace of ``exchanges`` (in the order they happened).

    Args:
        exchanges: every HTTP exchange of the run; non-model ones are skipped.
        name: the root span's name (its kind is always ``agent.run``).
        mode: ``metadata`` (names, counts, hashes) or ``replay`` (also redacted,
            truncated payloads); default ``HARNESS_TRACE_MODE``, else metadata.
            ``off`` gives a metadata trace: a trace asked for is always built.
        max_payload_chars: payload truncation; default
            ``HARNESS_TRACE_MAX_PAYLOAD_CHARS``, else 4000.

    Raises:
        ConfigurationError: an unknown mode or a payload limit below 1.
        started_at: when the run began; default the first ``Date`` response
            header, else the Unix epoch.
        metadata: extra facts for the tree's ``metadata``.
    """
    chosen = capture_mode(mode)
    limit = payload_limit(max_payload_chars)
    exchanges = list(exchanges)  # read three times: a generator would be spent by the first
    calls = [c for i, e in enumerate(exchanges) if (c := _read_call(i, e)) is not None]
    origin = started_at.astimezone(UTC) if started_at is not None else _origin(exchanges)
    tree = build_tree(
        place_calls(calls),
        calls,
        name=name,
        trace_id=_trace_id(exchanges),
        origin=origin,
        mode=chosen,
        max_payload_chars=limit,
        metadata={"source": "traffic", "exchanges": len(exchanges), **(metadata or {})},
    )
    tree.root.attributes["other_exchanges"] = len(exchanges) - len(calls)
    return tree


def _flat(headers: Mapping[str, Any]) -> dict[str, str]:
    flat = {}
    for name, values in headers.items():
        listed = values if isinstance(values, list) else [values]
        texts = [v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in listed]
        flat[str(name)] = ", ".join(texts)
    return flat


def exchanges_from_cassette(path: str | os.PathLike[str]) -> list[HttpExchange]:
    """The exchanges stored in a cassette, bodies decoded (any layout harness reads).

    Raises:
        CassetteError: the file is missing, unreadable, or not a vcrpy cassette.
    """
    from harness.recording import read_cassette

    return _exchanges(read_cassette(Path(path)))


def _exchanges(stored: StoredCassette) -> list[HttpExchange]:
    exchanges = []
    for request, response in stored.interactions:
        exchanges.append(
            HttpExchange(
                method=str(request["method"]),
                url=str(request["uri"]),
                request_headers=_flat(request.get("headers") or {}),
                request_body=request["body"],
                status=int(response["status"]["code"]),
                response_headers=_flat(response.get("headers") or {}),
                response_body=response["body"]["string"],
            )
        )
    return exchanges


def trace_from_cassette(
    path: str | os.PathLike[str], *, mode: TraceMode | None = None
) -> TraceTree:
    """The traffic trace of a cassette file: harness's own, vanilla vcrpy's (current
    or older httpx layout), or pydantic-ai's (``parsed_body``).

    Raises:
        CassetteError: the file is missing, unreadable, or not a vcrpy cassette.
    """
    from harness.recording import read_cassette

    file = Path(path)
    stored = read_cassette(file)
    exchanges = _exchanges(stored)
    recorded = stored.metadata.recorded_at if stored.metadata is not None else None
    started = _parse_time(recorded) if recorded else None
    return trace_from_exchanges(
        exchanges, mode=mode, started_at=started, metadata={"cassette": str(file)}
    )


def _parse_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
