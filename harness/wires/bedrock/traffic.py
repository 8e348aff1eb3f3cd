"""Bedrock Converse (``/model/{modelId}/converse[-stream]``) read for the traffic trace.

The model is in the path, URL-encoded (``us.amazon.nova-micro-v1%3A0``, or a
whole inference-profile ARN), and the body never names it, so the readers are
bound to a URL (:func:`readers`). Calls are ``toolUse`` blocks of an assistant
message (``toolUseId``, ``name``, ``input``); results are ``toolResult`` blocks
of the user message after it, paired by ``toolUseId``, with ``status: error``
as the error flag. A ``toolUse`` of ``type: server_tool_use`` and the
``toolResult`` beside it in the same assistant message ran on AWS's side
(Nova's code interpreter): counted, not asked. Usage is normalised as harness's
``Usage``: Converse's ``inputTokens`` excludes cache reads and writes, so input
here adds them. A stream (binary event-stream frames, see ``eventstream``) is
folded into the ``converse`` JSON it stands for and read the same way; an
``exception`` frame, or a body whose frames do not check out, is an error
response. Errors are ``{"message": ...}`` (the error type travels in the
``x-amzn-errortype`` header, which readers do not see; ``__type`` when present).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import unquote, urlsplit

from harness.traffic.sse import SseEvent
from harness.traffic.wire import (
    STABLE_JSON,
    ModelRequest,
    ModelResponse,
    TokenUsage,
    ToolAsk,
    ToolResult,
    thread_key,
)
from harness.wires.bedrock.eventstream import EventStreamError, decode_frames

__all__ = [
    "fold_stream",
    "is_call",
    "model_in_path",
    "model_of_path",
    "read_request",
    "read_response",
    "read_stream",
    "readers",
]

_CHOICES: Final = {"auto": "auto", "any": "required", "tool": "required"}
_SERVER_CALL: Final = "server_tool_use"
_METHODS: Final = ("converse", "converse-stream")

Readers = tuple[
    Callable[[dict[str, Any]], ModelRequest],
    Callable[[int, dict[str, Any] | None, bytes], ModelResponse],
    Callable[[int, list[SseEvent]], ModelResponse],
]


def model_of_path(path: str) -> str | None:
    """The model id of ``/model/{modelId}/converse[-stream]``, URL-decoded, or None."""
    head, _, method = path.rstrip("/").rpartition("/")
    if method not in _METHODS:
        return None
    # The first ``/model/``: a decoded ARN (``.../application-inference-profile/x``) has slashes.
    _, marker, model = head.partition("/model/")
    if not marker:
        return None
    return unquote(model) or None


def is_call(method: str, url: str) -> bool:
    """Whether a request is a Converse model call (a POST to a converse path)."""
    return method.upper() == "POST" and model_of_path(urlsplit(url).path) is not None


def readers(url: str) -> Readers:
    """The request, JSON and stream readers for a call to ``url``.

    The stream reader gets SSE events, which Converse never sends: its binary
    stream reaches the JSON reader as raw bytes (its first bytes are not SSE),
    which decodes the frames when the call is ``converse-stream``.
    """
    path = urlsplit(url).path
    model = model_of_path(path)
    stream = path.rstrip("/").endswith("/converse-stream")

    def request(data: dict[str, Any]) -> ModelRequest:
        return read_request(data, model=model, stream=stream)

    def response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
        if stream and data is None and status < 400:
            return read_stream_bytes(status, raw)
        return read_response(status, data, raw)

    return request, response, read_stream


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _maps(value: Any) -> list[Mapping[str, Any]]:
    """The objects of a JSON list (a field of the wrong type reads as empty)."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, list) else []


def _blocks(message: Any) -> list[Mapping[str, Any]]:
    return _maps(_mapping(message).get("content"))


def _text(blocks: Sequence[Mapping[str, Any]]) -> str:
    return "".join(str(b["text"]) for b in blocks if isinstance(b.get("text"), str))


def _asks(blocks: Sequence[Mapping[str, Any]]) -> tuple[ToolAsk, ...]:
    asks = []
    for index, block in enumerate(blocks):
        use = block.get("toolUse")
        if not isinstance(use, Mapping) or use.get("type") == _SERVER_CALL:
            continue
        value = use.get("input")
        arguments = value if isinstance(value, str) else STABLE_JSON(value or {})
        call_id = str(use.get("toolUseId") or f"tooluse-{index}")
        asks.append(ToolAsk(call_id, str(use.get("name") or "?"), arguments))
    return tuple(asks)


def _server_calls(blocks: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for b in blocks if _mapping(b.get("toolUse")).get("type") == _SERVER_CALL)


def _output(content: Any) -> str:
    """A ``toolResult``'s content as text: text blocks as they are, the rest named."""
    pieces = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, Mapping):
            continue
        if isinstance(block.get("text"), str):
            pieces.append(block["text"])
        elif "json" in block:
            pieces.append(STABLE_JSON(block["json"]))
        else:
            for kind in ("image", "document", "video"):
                if isinstance(block.get(kind), Mapping):
                    pieces.append(f"[{kind} {block[kind].get('format') or '?'}]")
    return "".join(pieces)


def read_request(
    data: dict[str, Any], *, model: str | None = None, stream: bool = False
) -> ModelRequest:
    """The trace's view of a Converse request body."""
    raw = data.get("messages")
    messages = tuple(m for m in raw if isinstance(m, dict)) if isinstance(raw, list) else ()
    history: dict[str, ToolAsk] = {}
    results: list[ToolResult] = []
    first: str | None = None
    for message in messages:
        blocks = _blocks(message)
        if message.get("role") == "assistant":
            for ask in _asks(blocks):
                history[ask.call_id] = ask
            continue
        if first is None:
            first = _text(blocks)
        for block in blocks:
            result = block.get("toolResult")
            if not isinstance(result, Mapping):
                continue
            call_id = str(result.get("toolUseId") or "")
            asked = history.get(call_id)
            is_error = result.get("status") == "error"
            output = _output(result.get("content"))
            results.append(ToolResult(call_id, asked.name if asked else None, output, is_error))
    system = _text(_maps(data.get("system")))
    config = _mapping(data.get("toolConfig"))
    tools = tuple(
        str(spec["name"])
        for t in _maps(config.get("tools"))
        if isinstance(spec := t.get("toolSpec"), Mapping) and spec.get("name")
    )
    choice = _mapping(config.get("toolChoice"))
    kind = next(iter(choice), None)
    return ModelRequest(
        wire="bedrock",
        model=model,
        stream=stream,
        messages=messages,
        tools=tools,
        tool_choice=_CHOICES.get(kind, kind) if kind is not None else None,
        results=tuple(results),
        history=history,
        thread=thread_key("bedrock", system, first),
        agent=thread_key("bedrock", system, sorted(tools)),
        prompt=first,
        system=system or None,
    )


def _count(usage: Mapping[str, Any], *names: str) -> int:
    for name in names:
        value = usage.get(name)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def read_usage(usage: Mapping[str, Any]) -> TokenUsage:
    """Converse ``usage`` as harness counts it: input includes cache reads and writes."""
    read = _count(usage, "cacheReadInputTokens", "cacheReadInputTokenCount")
    written = _count(usage, "cacheWriteInputTokens", "cacheWriteInputTokenCount")
    return TokenUsage(
        input=_count(usage, "inputTokens") + read + written,
        output=_count(usage, "outputTokens"),
        cached_input=read,
        cache_write_input=written,
    )


def _error(status: int, data: Mapping[str, Any] | None, raw: bytes) -> ModelResponse:
    details = data or {}
    kind = details.get("__type") or details.get("code")
    # AWS JSON errors may name the type as ``namespace#ValidationException``.
    kind = str(kind).rsplit("#", 1)[-1] if kind else f"http_{status}"
    message = details.get("message") or details.get("Message")
    if not isinstance(message, str):
        message = raw.decode("utf-8", "replace").strip()[:500]
    return ModelResponse(status=status, error_type=kind, error_message=message)


def read_response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
    """The trace's view of a ``converse`` JSON response (or an AWS error body)."""
    if status >= 400 or data is None or "output" not in data:
        return _error(status, data, raw)
    blocks = _blocks(_mapping(data.get("output")).get("message"))
    stop = data.get("stopReason")
    return ModelResponse(
        status=status,
        usage=read_usage(_mapping(data.get("usage"))),
        stop_reason=stop if isinstance(stop, str) else None,
        asks=_asks(blocks),
        text=_text(blocks),
        server_tool_calls=_server_calls(blocks),
    )


def read_stream(status: int, events: list[SseEvent]) -> ModelResponse:
    """A ``converse-stream`` answer that arrived as SSE: not Converse's framing."""
    return ModelResponse(
        status=status,
        error_type="invalid_event_stream",
        error_message=(
            f"{len(events)} SSE events where Bedrock sends application/vnd.amazon.eventstream "
            "frames; the cassette's response body is not a Converse stream"
        ),
    )


def read_stream_bytes(status: int, body: bytes) -> ModelResponse:
    """The trace's view of a ``converse-stream`` body: its frames folded into one response."""
    try:
        frames = decode_frames(body)
    except EventStreamError as exc:
        return ModelResponse(
            status=status, error_type="invalid_event_stream", error_message=str(exc)
        )
    events: list[tuple[str, dict[str, Any]]] = []
    for frame in frames:
        try:
            payload = json.loads(frame.payload) if frame.payload else {}
        except ValueError:
            payload = {"message": frame.payload.decode("utf-8", "replace")}
        payload = payload if isinstance(payload, dict) else {}
        if frame.message_type != "event":
            kind = frame.headers.get(":exception-type") or frame.headers.get(":error-code")
            message = payload.get("message") or frame.headers.get(":error-message") or ""
            return ModelResponse(
                status=status,
                error_type=str(kind or frame.message_type),
                error_message=str(message),
            )
        events.append((frame.event_type or "", payload))
    return read_response(status, fold_stream(events), b"")


def fold_stream(events: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """``(event type, payload)`` pairs of a ConverseStream folded into ``converse`` JSON.

    Text and reasoning blocks start with their first delta; ``toolUse`` input
    arrives as JSON text fragments, parsed when the block stops (kept as text if
    it does not parse, so the trace shows what was sent).
    """
    role = "assistant"
    blocks: dict[int, dict[str, Any]] = {}
    answer: dict[str, Any] = {}
    for kind, payload in events:
        index = payload.get("contentBlockIndex")
        block = blocks.setdefault(index, {}) if isinstance(index, int) else {}
        if kind == "messageStart":
            role = str(payload.get("role") or role)
        elif kind == "contentBlockStart":
            _start(block, _mapping(payload.get("start")))
        elif kind == "contentBlockDelta":
            _delta(block, _mapping(payload.get("delta")))
        elif kind == "contentBlockStop":
            _stop(block)
        elif kind == "messageStop":
            answer["stopReason"] = payload.get("stopReason")
        elif kind == "metadata":
            answer.update({k: payload[k] for k in ("usage", "metrics", "trace") if k in payload})
    for block in blocks.values():
        _stop(block)
    content = [blocks[i] for i in sorted(blocks) if blocks[i]]
    return {"output": {"message": {"role": role, "content": content}}, **answer}


def _start(block: dict[str, Any], start: Mapping[str, Any]) -> None:
    if isinstance(start.get("toolUse"), Mapping):
        block["toolUse"] = {**start["toolUse"], "input": ""}
    elif isinstance(start.get("toolResult"), Mapping):
        block["toolResult"] = {**start["toolResult"], "content": []}


def _delta(block: dict[str, Any], delta: Mapping[str, Any]) -> None:
    if isinstance(delta.get("text"), str):
        block["text"] = str(block.get("text") or "") + delta["text"]
    use = delta.get("toolUse")
    if isinstance(use, Mapping):
        entry = block.setdefault("toolUse", {"input": ""})
        entry["input"] = str(entry.get("input") or "") + str(use.get("input") or "")
    if isinstance(delta.get("toolResult"), list):
        entry = block.setdefault("toolResult", {"content": []})
        entry.setdefault("content", []).extend(delta["toolResult"])
    reasoning = delta.get("reasoningContent")
    if isinstance(reasoning, Mapping):
        entry = block.setdefault("reasoningContent", {})
        if "redactedContent" in reasoning:
            entry["redactedContent"] = str(entry.get("redactedContent") or "") + str(
                reasoning["redactedContent"]
            )
        for key in ("text", "signature"):
            if isinstance(reasoning.get(key), str):
                text = entry.setdefault("reasoningText", {})
                text[key] = str(text.get(key) or "") + reasoning[key]


def _stop(block: dict[str, Any]) -> None:
    use = block.get("toolUse")
    if isinstance(use, dict) and isinstance(use.get("input"), str):
        text = use["input"]
        # A cut-off fragment stays text: the trace shows what was sent.
        with contextlib.suppress(ValueError):
            use["input"] = json.loads(text) if text.strip() else {}


def model_in_path(url: str) -> str | None:
    """The model a call to ``url`` names in its path (this wire's body does not)."""
    return model_of_path(urlsplit(url).path)
