"""The OpenAI Responses API (``POST /v1/responses``) read for the traffic trace.

Input items: ``message`` (or a bare ``role``/``content``), ``function_call`` and
``function_call_output`` (``call_id``, ``output``; no error flag), their
``custom_tool_call`` twins, ``reasoning``. Output items: ``function_call`` (the
calls asked for), ``message`` (``output_text`` / ``refusal`` parts),
``reasoning``; hosted tools (``web_search_call``, ...) are only counted. A
request sent with ``previous_response_id`` continues that response's
conversation. The wire has no finish reason: ``stop_reason`` is the response
``status`` (``completed``, ``failed``), or for an ``incomplete`` one its
``incomplete_details.reason`` (``max_output_tokens``, ``content_filter``).

A stream ends with ``response.completed`` / ``response.incomplete`` /
``response.failed`` carrying the whole response; when it was cut before that,
the answer is rebuilt from ``response.output_item.added`` / ``.done``,
``response.output_text.delta`` and ``response.function_call_arguments.delta``.
"""

from __future__ import annotations

import json
from typing import Any, Final
from urllib.parse import urlsplit

from harness.core.wires import wire
from harness.traffic.sse import SseEvent
from harness.traffic.wire import (
    STABLE_JSON,
    ModelRequest,
    ModelResponse,
    Readers,
    TokenUsage,
    ToolAsk,
    ToolResult,
    as_text,
    error_of,
    mapping,
    thread_key,
)

__all__ = [
    "is_call",
    "model_in_path",
    "read_responses_request",
    "read_responses_response",
    "read_responses_stream",
    "readers",
]

_PATHS = wire("openai-responses").path_suffixes

_CALLS: Final = ("function_call", "custom_tool_call")
_OUTPUTS: Final = ("function_call_output", "custom_tool_call_output")
_TERMINAL: Final = ("response.completed", "response.incomplete", "response.failed")
_OWN_ITEMS: Final = ("message", "reasoning", *_CALLS)


def _ask(item: dict[str, Any], position: int) -> ToolAsk:
    call_id = str(item.get("call_id") or item.get("id") or f"call-{position}")
    arguments = item.get("arguments", item.get("input"))
    text = arguments if isinstance(arguments, str) else STABLE_JSON(arguments or {})
    item_id = item.get("id") if isinstance(item.get("id"), str) else None
    return ToolAsk(call_id, str(item.get("name") or "?"), text, item_id)


def _items(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        return [{"type": "message", "role": "user", "content": value}]
    return [item for item in value or [] if isinstance(item, dict)]


def read_responses_request(data: dict[str, Any]) -> ModelRequest:
    """The trace's view of a Responses request body."""
    items = _items(data.get("input"))
    names: dict[str, ToolAsk] = {}
    results: list[ToolResult] = []
    prompt: str | None = None
    for position, item in enumerate(items):
        kind = item.get("type", "message")
        if kind in _CALLS:
            ask = _ask(item, position)
            names[ask.call_id] = ask
        elif kind in _OUTPUTS:
            call_id = str(item.get("call_id") or "")
            asked = names.get(call_id)
            output = as_text(item.get("output"))
            results.append(ToolResult(call_id, asked.name if asked else None, output))
        elif kind == "message" and item.get("role") == "user" and prompt is None:
            prompt = as_text(item.get("content"))
    tools = []
    for tool in data.get("tools") or []:
        if isinstance(tool, dict):
            tools.append(str(tool.get("name") or tool.get("type") or "?"))
    choice = data.get("tool_choice")
    previous = data.get("previous_response_id")
    return ModelRequest(
        wire="openai-responses",
        model=data.get("model") if isinstance(data.get("model"), str) else None,
        stream=bool(data.get("stream")),
        messages=tuple(items),
        tools=tuple(tools),
        tool_choice=choice if isinstance(choice, str) or choice is None else "required",
        results=tuple(results),
        history=names,
        thread=thread_key("openai-responses", as_text(data.get("instructions")), prompt),
        agent=thread_key("openai-responses", as_text(data.get("instructions")), sorted(tools)),
        prompt=prompt,
        previous_response_id=previous if isinstance(previous, str) else None,
        system=as_text(data.get("instructions")) or None,
    )


def _usage(usage: Any) -> TokenUsage:
    if not isinstance(usage, dict):
        return TokenUsage()
    inputs = mapping(usage.get("input_tokens_details"))
    reasoning = mapping(usage.get("output_tokens_details")).get("reasoning_tokens")
    return TokenUsage(
        input=int(usage.get("input_tokens") or 0),
        output=int(usage.get("output_tokens") or 0),
        cached_input=int(inputs.get("cached_tokens") or 0),
        cache_write_input=int(inputs.get("cache_write_tokens") or 0),
        reasoning=int(reasoning) if isinstance(reasoning, int) else None,
    )


def _message_text(item: dict[str, Any]) -> str:
    parts = item.get("content")
    if isinstance(parts, str):
        return parts
    texts = []
    for part in parts or []:
        if isinstance(part, dict):
            texts.append(str(part.get("text") or part.get("refusal") or ""))
    return "".join(texts)


def read_responses_response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
    """The trace's view of a JSON Responses response (or an error body)."""
    if status >= 400 or data is None or (data.get("error") and data.get("status") != "completed"):
        kind, message = error_of(status, data, raw)
        return ModelResponse(status=status, error_type=kind, error_message=message)
    output = _items(data.get("output"))
    state = data.get("status")
    details = data.get("incomplete_details")
    reason = details.get("reason") if isinstance(details, dict) else None
    return ModelResponse(
        status=status,
        model=data.get("model"),
        usage=_usage(data.get("usage")),
        stop_reason=reason if state == "incomplete" and reason else state,
        asks=tuple(_ask(item, i) for i, item in enumerate(output) if item.get("type") in _CALLS),
        text="".join(_message_text(i) for i in output if i.get("type") == "message"),
        response_id=data.get("id"),
        server_tool_calls=sum(1 for i in output if i.get("type") not in _OWN_ITEMS),
    )


def read_responses_stream(status: int, events: list[SseEvent]) -> ModelResponse:
    """The trace's view of a streamed Responses response."""
    started: dict[str, Any] = {}
    final: dict[str, Any] | None = None
    items: dict[int, dict[str, Any]] = {}
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        kind = data.get("type", event.event)
        if kind == "error":
            error_type, text = error_of(status, {"error": data.get("error", data)}, b"")
            return ModelResponse(status=status, error_type=error_type, error_message=text)
        if kind in _TERMINAL and isinstance(data.get("response"), dict):
            final = data["response"]
        elif kind == "response.created" and isinstance(data.get("response"), dict):
            started = data["response"]
        else:
            _rebuild(items, kind, data)
    response = dict(final if final is not None else started)
    if not response.get("output") and items:
        response["output"] = [items[i] for i in sorted(items)]
    if final is None and response:
        response["status"] = "incomplete"  # the stream ended before its last event
    return read_responses_response(status, response or None, b"")


def _rebuild(items: dict[int, dict[str, Any]], kind: Any, data: dict[str, Any]) -> None:
    index = data.get("output_index")
    if not isinstance(index, int):
        return
    if kind in ("response.output_item.added", "response.output_item.done"):
        if isinstance(data.get("item"), dict):
            items[index] = dict(data["item"])
        return
    item = items.setdefault(index, {"type": "message"})
    delta = data.get("delta")
    if not isinstance(delta, str):
        return
    if kind == "response.function_call_arguments.delta":
        item["arguments"] = str(item.get("arguments") or "") + delta
    elif kind in ("response.output_text.delta", "response.refusal.delta"):
        item["content"] = _message_text(item) + delta


def is_call(method: str, url: str) -> bool:
    """Whether a request is a Responses API model call (a POST to a path ending ``/responses``)."""
    return method.upper() == "POST" and urlsplit(url).path.rstrip("/").endswith(_PATHS)


def readers(url: str) -> Readers:
    """The request, JSON and stream readers for a call to ``url`` (the same for any URL)."""
    return read_responses_request, read_responses_response, read_responses_stream


def model_in_path(url: str) -> str | None:
    """None: this wire names the model in the request body, not in the path."""
    return None
