"""OpenAI Chat Completions (``POST /v1/chat/completions``) read for the traffic trace.

Tool results are the ``role: tool`` messages (``tool_call_id``, ``content``); the
wire has no error flag for them. A streamed answer is reassembled from its
chunks: text deltas, tool calls by ``index`` with their argument fragments, the
``finish_reason``, and the usage chunk ``stream_options.include_usage`` adds
(``choices: []``), up to ``data: [DONE]``. Only the first choice is read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
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
    "read_chat_request",
    "read_chat_response",
    "read_chat_stream",
    "readers",
]

_PATHS = wire("openai").path_suffixes


def _tool_choice(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    return "required"  # a named function: the model must call it


def _tool_names(data: dict[str, Any]) -> tuple[str, ...]:
    names = []
    for tool in data.get("tools") or data.get("functions") or []:
        if not isinstance(tool, dict):
            continue
        spec = tool.get("function") or tool.get("custom") or tool
        if isinstance(spec, dict) and spec.get("name"):
            names.append(str(spec["name"]))
    return tuple(names)


def _ask(call: Any, position: int) -> ToolAsk | None:
    if not isinstance(call, dict):
        return None
    call_id = str(call.get("id") or f"call-{position}")
    if isinstance(call.get("custom"), dict):  # a custom (free-form input) tool
        custom = call["custom"]
        return ToolAsk(call_id, str(custom.get("name") or "?"), str(custom.get("input") or ""))
    function = mapping(call.get("function"))
    arguments = function.get("arguments")
    text = arguments if isinstance(arguments, str) else STABLE_JSON(arguments or {})
    return ToolAsk(call_id, str(function.get("name") or "?"), text)


def read_chat_request(data: dict[str, Any]) -> ModelRequest:
    """The trace's view of a Chat Completions request body."""
    raw = data.get("messages")
    messages = tuple(raw) if isinstance(raw, list) else ()
    names: dict[str, ToolAsk] = {}
    results: list[ToolResult] = []
    leading: list[Any] = []
    prompt: str | None = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if prompt is None:
            leading.append([role, as_text(message.get("content"))])
        if role == "user" and prompt is None:
            prompt = as_text(message.get("content"))
        elif role == "assistant":
            for position, call in enumerate(message.get("tool_calls") or []):
                ask = _ask(call, position)
                if ask is not None:
                    names[ask.call_id] = ask
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            asked = names.get(call_id)
            name = asked.name if asked else message.get("name")
            results.append(
                ToolResult(call_id, str(name) if name else None, as_text(message.get("content")))
            )
    return ModelRequest(
        wire="openai",
        model=data.get("model") if isinstance(data.get("model"), str) else None,
        stream=bool(data.get("stream")),
        messages=messages,
        tools=_tool_names(data),
        tool_choice=_tool_choice(data.get("tool_choice")),
        results=tuple(results),
        history=names,
        thread=thread_key("openai", leading),
        agent=thread_key("openai", leading[:-1], sorted(_tool_names(data))),
        prompt=prompt,
    )


def _usage(usage: Any) -> TokenUsage:
    if not isinstance(usage, dict):
        return TokenUsage()
    prompt = mapping(usage.get("prompt_tokens_details"))
    reasoning = mapping(usage.get("completion_tokens_details")).get("reasoning_tokens")
    return TokenUsage(
        input=int(usage.get("prompt_tokens") or 0),
        output=int(usage.get("completion_tokens") or 0),
        cached_input=int(prompt.get("cached_tokens") or 0),
        reasoning=int(reasoning) if isinstance(reasoning, int) else None,
    )


def read_chat_response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
    """The trace's view of a JSON Chat Completions response (or an error body)."""
    if status >= 400 or data is None or "error" in data:
        kind, problem = error_of(status, data, raw)
        return ModelResponse(status=status, error_type=kind, error_message=problem)
    choices = data.get("choices") or []
    choice = mapping(choices[0] if choices else None)
    message = mapping(choice.get("message"))
    calls = message.get("tool_calls") or []
    asks = tuple(a for i, c in enumerate(calls) if (a := _ask(c, i)) is not None)
    return ModelResponse(
        status=status,
        model=data.get("model"),
        usage=_usage(data.get("usage")),
        stop_reason=choice.get("finish_reason"),
        asks=asks,
        text=as_text(message.get("content")) or as_text(message.get("refusal")),
        response_id=data.get("id"),
    )


@dataclass
class _Partial:
    call_id: str = ""
    name: str = ""
    arguments: str = ""


def read_chat_stream(status: int, events: list[SseEvent]) -> ModelResponse:
    """The trace's view of a streamed Chat Completions response."""
    text: list[str] = []
    calls: dict[int, _Partial] = {}
    model = finish = response_id = None
    usage = TokenUsage()
    for event in events:
        if event.data.strip() == "[DONE]":
            break
        try:
            chunk = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(chunk, dict):
            continue
        if "error" in chunk:
            kind, message = error_of(status, chunk, event.data.encode())
            return ModelResponse(status=status, model=model, error_type=kind, error_message=message)
        model = chunk.get("model") or model
        response_id = chunk.get("id") or response_id
        if isinstance(chunk.get("usage"), dict):
            usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = mapping(choice.get("delta"))
            text.append(as_text(delta.get("content")) + as_text(delta.get("refusal")))
            for fragment in delta.get("tool_calls") or []:
                if isinstance(fragment, dict):
                    _merge(calls, fragment)
            finish = choice.get("finish_reason") or finish
    asks = tuple(
        ToolAsk(p.call_id or f"call-{i}", p.name or "?", p.arguments)
        for i, p in sorted(calls.items())
    )
    return ModelResponse(
        status=status,
        model=model,
        usage=usage,
        stop_reason=finish,
        asks=asks,
        text="".join(text),
        response_id=response_id,
    )


def _merge(calls: dict[int, _Partial], fragment: dict[str, Any]) -> None:
    index = fragment.get("index", len(calls))
    partial = calls.setdefault(index if isinstance(index, int) else len(calls), _Partial())
    if fragment.get("id"):
        partial.call_id = str(fragment["id"])
    function = mapping(fragment.get("function") or fragment.get("custom"))
    if function.get("name") and not partial.name:
        partial.name = str(function["name"])
    piece = function.get("arguments", function.get("input"))
    if isinstance(piece, str):
        partial.arguments += piece


def is_call(method: str, url: str) -> bool:
    """Whether a request is a Chat Completions model call (a POST to ``.../chat/completions``)."""
    return method.upper() == "POST" and urlsplit(url).path.rstrip("/").endswith(_PATHS)


def readers(url: str) -> Readers:
    """The request, JSON and stream readers for a call to ``url`` (the same for any URL)."""
    return read_chat_request, read_chat_response, read_chat_stream


def model_in_path(url: str) -> str | None:
    """None: this wire names the model in the request body, not in the path."""
    return None
