"""Anthropic Messages (``POST /v1/messages``) read for the traffic trace.

Tool results are ``tool_result`` blocks in user messages (``tool_use_id``,
``content``, and an ``is_error`` flag, the one wire format that has one). The
model's calls are ``tool_use`` blocks; ``server_tool_use`` blocks run on
Anthropic's side and are only counted. A stream is reassembled from
``message_start`` (model, input usage), ``content_block_start`` /
``content_block_delta`` (``text_delta``, ``input_json_delta``) and
``message_delta`` (stop reason, output usage); ``ping`` and thinking deltas are
skipped. Usage is normalised as harness's own: input includes cache reads and writes.
"""

from __future__ import annotations

import json
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
    "read_messages_request",
    "read_messages_response",
    "read_messages_stream",
    "readers",
]

_PATHS = wire("anthropic").path_suffixes

_CHOICES = {"auto": "auto", "any": "required", "tool": "required", "none": "none"}
_SERVER_BLOCKS = ("server_tool_use", "mcp_tool_use")


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [block for block in content or [] if isinstance(block, dict)]


def _text(blocks: list[dict[str, Any]]) -> str:
    return "".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")


def read_messages_request(data: dict[str, Any]) -> ModelRequest:
    """The trace's view of a Messages request body."""
    raw = data.get("messages")
    messages = tuple(raw) if isinstance(raw, list) else ()
    names: dict[str, ToolAsk] = {}
    results: list[ToolResult] = []
    prompt: str | None = None
    first: Any = None
    for message in messages:
        if not isinstance(message, dict):
            continue
        blocks = _blocks(message.get("content"))
        if message.get("role") == "assistant":
            for ask in _asks(blocks):
                names[ask.call_id] = ask
            continue
        if first is None:
            first, prompt = _text(blocks), _text(blocks)
        for block in blocks:
            if block.get("type") == "tool_result":
                call_id = str(block.get("tool_use_id") or "")
                output = as_text(block.get("content"))
                asked = names.get(call_id)
                name = asked.name if asked else None
                results.append(ToolResult(call_id, name, output, bool(block.get("is_error"))))
    choice = data.get("tool_choice")
    kind = choice.get("type") if isinstance(choice, dict) else choice
    tools = tuple(
        str(t["name"]) for t in data.get("tools") or [] if isinstance(t, dict) and t.get("name")
    )
    return ModelRequest(
        wire="anthropic",
        model=data.get("model") if isinstance(data.get("model"), str) else None,
        stream=bool(data.get("stream")),
        messages=messages,
        tools=tools,
        tool_choice=_CHOICES.get(str(kind), str(kind)) if kind is not None else None,
        results=tuple(results),
        history=names,
        thread=thread_key("anthropic", as_text(data.get("system")), first),
        agent=thread_key("anthropic", as_text(data.get("system")), sorted(tools)),
        prompt=prompt,
        # A thread ``continue`` (the SDK's tool runner) sends only the new turn:
        # the message it names joins it to its conversation, as Responses' id does.
        previous_response_id=_continued(data.get("thread")),
        system=as_text(data.get("system")) or None,
    )


def _continued(thread: Any) -> str | None:
    """The ``previous_message_id`` a thread ``continue`` names, else None."""
    if not isinstance(thread, dict) or thread.get("type") != "continue":
        return None
    previous = thread.get("previous_message_id")
    return previous if isinstance(previous, str) else None


def _usage(usage: dict[str, Any]) -> TokenUsage:
    read = int(usage.get("cache_read_input_tokens") or 0)
    written = int(usage.get("cache_creation_input_tokens") or 0)
    return TokenUsage(
        input=int(usage.get("input_tokens") or 0) + read + written,
        output=int(usage.get("output_tokens") or 0),
        cached_input=read,
        cache_write_input=written,
    )


def _asks(blocks: list[dict[str, Any]]) -> tuple[ToolAsk, ...]:
    return tuple(
        ToolAsk(str(b.get("id") or f"toolu-{i}"), str(b.get("name") or "?"), _input(b))
        for i, b in enumerate(blocks)
        if b.get("type") == "tool_use"
    )


def _input(block: dict[str, Any]) -> str:
    value = block.get("input")
    return value if isinstance(value, str) else STABLE_JSON(value if value is not None else {})


def read_messages_response(status: int, data: dict[str, Any] | None, raw: bytes) -> ModelResponse:
    """The trace's view of a JSON Messages response (or an error body)."""
    if status >= 400 or data is None or data.get("type") == "error":
        kind, message = error_of(status, data, raw)
        return ModelResponse(status=status, error_type=kind, error_message=message)
    blocks = _blocks(data.get("content"))
    usage = data.get("usage")
    return ModelResponse(
        status=status,
        model=data.get("model"),
        usage=_usage(usage) if isinstance(usage, dict) else TokenUsage(),
        stop_reason=data.get("stop_reason"),
        asks=_asks(blocks),
        text=_text(blocks),
        response_id=data.get("id"),
        server_tool_calls=sum(1 for b in blocks if b.get("type") in _SERVER_BLOCKS),
    )


def read_messages_stream(status: int, events: list[SseEvent]) -> ModelResponse:
    """The trace's view of a streamed Messages response."""
    message: dict[str, Any] = {}
    blocks: dict[int, dict[str, Any]] = {}
    usage: dict[str, Any] = {}
    for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        kind = data.get("type", event.event)
        if kind == "error":
            error_type, text = error_of(status, data, event.data.encode())
            return ModelResponse(status=status, error_type=error_type, error_message=text)
        if kind == "message_start" and isinstance(data.get("message"), dict):
            message = {**data["message"], "content": []}
            usage.update(message.get("usage") or {})
        elif kind == "content_block_start" and isinstance(data.get("content_block"), dict):
            block = dict(data["content_block"])
            if block.get("type") == "tool_use":
                block["input"] = ""
            blocks[int(data.get("index", len(blocks)))] = block
        elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
            _apply(blocks.get(int(data.get("index", -1))), data["delta"])
        elif kind == "message_delta":
            delta = mapping(data.get("delta"))
            message["stop_reason"] = delta.get("stop_reason") or message.get("stop_reason")
            if isinstance(data.get("usage"), dict):
                usage.update({k: v for k, v in data["usage"].items() if v is not None})
    for block in blocks.values():
        if block.get("type") == "tool_use" and block.get("input") == "":
            block["input"] = "{}"
    message["content"] = [blocks[i] for i in sorted(blocks)]
    message["usage"] = usage
    return read_messages_response(status, message, b"")


def _apply(block: dict[str, Any] | None, delta: dict[str, Any]) -> None:
    if block is None:
        return
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = str(block.get("text") or "") + str(delta.get("text") or "")
    elif kind == "input_json_delta":
        block["input"] = str(block.get("input") or "") + str(delta.get("partial_json") or "")


def is_call(method: str, url: str) -> bool:
    """Whether a request is a Messages model call (a POST to a path ending ``/messages``)."""
    return method.upper() == "POST" and urlsplit(url).path.rstrip("/").endswith(_PATHS)


def readers(url: str) -> Readers:
    """The request, JSON and stream readers for a call to ``url`` (the same for any URL)."""
    return read_messages_request, read_messages_response, read_messages_stream


def model_in_path(url: str) -> str | None:
    """None: this wire names the model in the request body, not in the path."""
    return None
