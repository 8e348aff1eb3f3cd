"""Gemini (``:generateContent``, ``:streamGenerateContent?alt=sse``) read for the traffic trace.

The model and whether the call streams are in the path, not the body, so the
readers are bound to a URL (:func:`readers`). Calls are ``functionCall`` parts
of a ``model`` content; results are ``functionResponse`` parts of the user
content after it (several for parallel calls). gemini-2.x calls carry no id
and clients invent their own when they send a call back, so a call is known by
``<name>#<n>`` (its place among the calls of that name in its content) as well
as by its id, and a result is paired with the call of the content before it by
id, else by name and order; a request's results are those after its last model
content (the ones it sends for the first time). A result is an error when its ``response`` holds
only an ``error`` key (the convention of pydantic-ai and of harness's provider;
the wire has no flag). Usage is the last chunk's, normalised as harness's
``Usage`` (thoughts counted as output and as reasoning, cache reads inside
input); the stop reason is ``finishReason`` as sent, or ``blockReason`` for a
prompt refused before generation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final
from urllib.parse import urlsplit

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
from harness.wires.gemini.parts import (
    answer_parts,
    answer_text,
    field,
    finish_reason,
    fold_chunks,
    model_of_path,
    read_usage,
)

__all__ = ["is_call", "model_in_path", "read_request", "read_response", "read_stream", "readers"]

_CHOICES: Final = {"AUTO": "auto", "ANY": "required", "NONE": "none", "VALIDATED": "validated"}
_SERVER_PARTS: Final = ("executableCode", "toolCall")

Readers = tuple[
    Callable[[dict[str, Any]], ModelRequest],
    Callable[[int, dict[str, Any] | None, bytes], ModelResponse],
    Callable[[int, list[SseEvent]], ModelResponse],
]


def is_call(method: str, url: str) -> bool:
    """Whether a request is a Gemini model call (a POST to a generate path)."""
    return method.upper() == "POST" and model_of_path(urlsplit(url).path) is not None


def readers(url: str) -> Readers:
    """The request, JSON and stream readers for a call to ``url``."""
    path = urlsplit(url).path
    model = model_of_path(path)
    stream = ":streamGenerateContent" in path

    def request(data: dict[str, Any]) -> ModelRequest:
        return read_request(data, model=model, stream=stream)

    return request, read_response, read_stream


def _parts(content: Any) -> list[dict[str, Any]]:
    parts = content.get("parts") if isinstance(content, Mapping) else None
    return [p for p in parts or () if isinstance(p, dict)]


def _text(parts: Sequence[Mapping[str, Any]]) -> str:
    return "".join(str(p["text"]) for p in parts if isinstance(p.get("text"), str))


def _asks(parts: Sequence[Mapping[str, Any]]) -> list[ToolAsk]:
    """The calls of one content; ``item_id`` is the ``<name>#<n>`` every reader agrees on."""
    asks = []
    seen: dict[str, int] = {}
    for part in parts:
        call = field(part, "functionCall")
        if not isinstance(call, Mapping):
            continue
        name = str(call.get("name") or "?")
        place = f"{name}#{seen.get(name, 0)}"
        seen[name] = seen.get(name, 0) + 1
        given = call.get("id")
        args = call.get("args")
        arguments = STABLE_JSON(args if isinstance(args, Mapping) else {})
        asks.append(
            ToolAsk(
                given if isinstance(given, str) and given else place, name, arguments, item_id=place
            )
        )
    return asks


def _results(parts: Sequence[Mapping[str, Any]], before: Sequence[ToolAsk]) -> list[ToolResult]:
    results = []
    taken: dict[str, int] = {}
    for part in parts:
        answer = field(part, "functionResponse")
        if not isinstance(answer, Mapping):
            continue
        name = str(answer.get("name") or "")
        given = answer.get("id")
        paired = next((a for a in before if isinstance(given, str) and given == a.call_id), None)
        if paired is None:
            same = [a for a in before if a.name == name]
            nth = taken.get(name, 0)
            taken[name] = nth + 1
            paired = same[nth] if nth < len(same) else None
        if paired is not None:
            call_id = str(paired.item_id)
        else:
            call_id = given if isinstance(given, str) and given else f"{name}#{taken[name] - 1}"
        value = answer.get("response")
        is_error = isinstance(value, Mapping) and set(value) == {"error"}
        results.append(ToolResult(call_id, name or None, _output(value), is_error))
    return results


def _output(value: Any) -> str:
    if isinstance(value, Mapping) and len(value) == 1:
        (only,) = value.values()
        if isinstance(only, str):
            return only
    return STABLE_JSON(value if value is not None else {})


def read_request(
    data: dict[str, Any], *, model: str | None = None, stream: bool = False
) -> ModelRequest:
    """The trace's view of a ``generateContent`` body (either key spelling)."""
    raw = data.get("contents")
    contents = tuple(c for c in raw if isinstance(c, dict)) if isinstance(raw, list) else ()
    history: dict[str, ToolAsk] = {}
    results: list[ToolResult] = []
    before: list[ToolAsk] = []
    first: str | None = None
    for content in contents:
        parts = _parts(content)
        if content.get("role") == "model":
            # Results answer the model turn right before them; only those after the
            # last one are new (an id-less call's ``<name>#<n>`` repeats turn by turn).
            results = []
            before = _asks(parts)
            for ask in before:
                history[str(ask.item_id)] = ask
                history.setdefault(ask.call_id, ask)
            continue
        if first is None:
            first = _text(parts)
        results.extend(_results(parts, before))
        before = []
    system = _text(_parts(field(data, "systemInstruction")))
    tools = tuple(
        str(d["name"])
        for t in data.get("tools") or ()
        if isinstance(t, Mapping)
        for d in field(t, "functionDeclarations") or ()
        if isinstance(d, Mapping) and d.get("name")
    )
    config = field(_mapping(field(data, "toolConfig")), "functionCallingConfig")
    mode = field(config, "mode") if isinstance(config, Mapping) else None
    return ModelRequest(
        wire="gemini",
        model=model,
        stream=stream,
        messages=contents,
        tools=tools,
        tool_choice=_CHOICES.get(str(mode), str(mode).lower()) if mode is not None else None,
        results=tuple(results),
        history=history,
        thread=thread_key("gemini", system, first),
        agent=thread_key("gemini", system, sorted(tools)),
        prompt=first,
        system=system or None,
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def read_response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
    """The trace's view of a JSON ``GenerateContentResponse`` (or a Google error body)."""
    error = data.get("error") if data is not None else None
    if status >= 400 or data is None or isinstance(error, Mapping):
        details = _mapping(error)
        kind = details.get("status") or details.get("code") or f"http_{status}"
        message = details.get("message") or raw.decode("utf-8", "replace").strip()[:500]
        return ModelResponse(status=status, error_type=str(kind), error_message=str(message))
    parts = answer_parts(data)
    usage = read_usage(data)
    model = data.get("modelVersion")
    response_id = data.get("responseId")
    return ModelResponse(
        status=status,
        model=model if isinstance(model, str) else None,
        usage=TokenUsage(
            input=usage.input,
            output=usage.output,
            cached_input=usage.cached,
            reasoning=usage.reasoning,
        ),
        stop_reason=finish_reason(data),
        asks=tuple(_asks(parts)),
        text=answer_text(parts),
        response_id=response_id if isinstance(response_id, str) else None,
        server_tool_calls=sum(1 for p in parts for key in _SERVER_PARTS if key in p),
    )


def read_stream(status: int, events: list[SseEvent]) -> ModelResponse:
    """The trace's view of a streamed answer: its chunks folded into one response."""
    chunks = []
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue
        if isinstance(data, dict):
            if isinstance(data.get("error"), Mapping):
                return read_response(max(status, 500), data, event.data.encode())
            chunks.append(data)
    return read_response(status, fold_chunks(chunks), b"")


def model_in_path(url: str) -> str | None:
    """The model a call to ``url`` names in its path (this wire's body does not)."""
    return model_of_path(urlsplit(url).path)
