"""Anthropic Messages: request validation and answers in the real wire shapes.

A request with ``thread`` (the SDK's tool runner sends one by default) is kept
by the server (``_held``) under its answer's id: ``{"type": "create"}`` starts
a thread, ``{"type": "continue", "previous_message_id": ...}`` sends only the
new messages, and the server puts the thread's messages, ``system`` and
``tools`` before them; an id nothing kept is refused with the
``thread_not_found`` code, on which the SDK replays the whole history.
"""

from __future__ import annotations

import json
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from harness.simulator import ErrorReply, Reply
from harness.simulator.wire_api import (
    Answer,
    ApiError,
    Conversation,
    Ids,
    chunks,
    estimate_tokens,
    json_answer,
    sse_answer,
    text_of,
)

if TYPE_CHECKING:
    from harness.simulator.wire_api import HeldConversations

__all__ = ["REQUEST_ID_HEADER", "answer", "error_answer", "hold", "parse", "resume", "route"]

# The header the real API sends its request id in (the simulator sends one too).
REQUEST_ID_HEADER: Final = "request-id"

# What a thread keeps from the request that created it: a ``continue`` omits them.
_THREAD_FIELDS = ("system", "tools")

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _payload(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_sim"}


def _invalid(message: str) -> ApiError:
    return ApiError(400, _payload("invalid_request_error", message))


def _blocks(message: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [block for block in content if isinstance(block, dict) and block.get("type") == kind]


def _check_roles(messages: list[Any]) -> None:
    previous = None
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in ("user", "assistant"):
            raise _invalid(f"messages.{index}.role: Input should be 'user' or 'assistant'")
        if index == 0 and role != "user":
            raise _invalid('messages: first message must use the "user" role')
        if role == previous:
            raise _invalid(
                'messages: roles must alternate between "user" and "assistant", '
                f'but found multiple "{role}" roles in a row'
            )
        previous = role


def _check_tool_results(messages: list[dict[str, Any]]) -> None:
    """tool_result ids answer exactly the tool_use blocks of the previous message."""
    for index, message in enumerate(messages):
        uses = {block.get("id") for block in _blocks(message, "tool_use")}
        following = messages[index + 1] if index + 1 < len(messages) else None
        if uses and following is not None:
            answered = {block.get("tool_use_id") for block in _blocks(following, "tool_result")}
            if missing := sorted(str(u) for u in uses - answered):
                raise _invalid(
                    f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks "
                    f"immediately after: {', '.join(missing)}. Each `tool_use` block must have a "
                    "corresponding `tool_result` block in the next message."
                )
        previous_uses = (
            {b.get("id") for b in _blocks(messages[index - 1], "tool_use")} if index else set()
        )
        for position, block in enumerate(message.get("content") or []):
            if (
                isinstance(block, dict)
                and block.get("type") == "tool_result"
                and block.get("tool_use_id") not in previous_uses
            ):
                raise _invalid(
                    f"messages.{index}.content.{position}: unexpected `tool_use_id` found in "
                    f"`tool_result` blocks: {block.get('tool_use_id')}. Each `tool_result` block "
                    "must have a corresponding `tool_use` block in the previous message."
                )


def parse(body: Any) -> Conversation:
    """Validate a request body as the real API does and describe it.

    Raises:
        ApiError: the body is not a request the real API would accept.
    """
    if not isinstance(body, dict):
        raise _invalid(
            "There was an error parsing the body of your request: expected a JSON object."
        )
    _thread(body)
    for name in ("model", "max_tokens", "messages"):
        if name not in body:
            raise _invalid(f"{name}: Field required")
    if not isinstance(body["max_tokens"], int) or body["max_tokens"] < 1:
        raise _invalid("max_tokens: Input should be a valid integer greater than or equal to 1")
    messages = body["messages"]
    if not isinstance(messages, list) or not messages:
        raise _invalid("messages: at least one message is required")
    _check_roles(messages)
    _check_tool_results(messages)
    results = [text_of(b.get("content")) for m in messages for b in _blocks(m, "tool_result")]
    last = messages[-1]
    trailing = (
        [text_of(b.get("content")) for b in _blocks(last, "tool_result")]
        if last["role"] == "user"
        else []
    )
    users = [m for m in messages if m["role"] == "user" and not _blocks(m, "tool_result")]
    return Conversation(
        model=str(body["model"]),
        stream=bool(body.get("stream")),
        assistant_turns=sum(1 for m in messages if m["role"] == "assistant"),
        last_user_text=text_of(users[-1].get("content")) if users else None,
        tool_results=tuple(results),
        trailing_tool_results=tuple(trailing),
        input_tokens=estimate_tokens(
            messages, body.get("system") or "", body.get("tools") or [], messages=len(messages)
        ),
        options={"thinking": _thinks(body)},
        tool_names=tuple(str(tool.get("name", "")) for tool in body.get("tools") or []),
        system=text_of(body.get("system") or ""),
    )


def _thinks(body: dict[str, Any]) -> bool:
    """Whether the request enables extended thinking (``thinking.type`` enabled or adaptive)."""
    thinking = body.get("thinking")
    return isinstance(thinking, dict) and thinking.get("type") in ("enabled", "adaptive")


def _thinking_block(reply: Reply, seed: str) -> dict[str, Any]:
    """The thinking block a thinking model opens its answer with (text and a signature)."""
    acts = ", ".join(call.name for call in reply.tool_calls)
    text = f"The simulated model plans to call {acts}." if acts else "The simulated model answers."
    return {"type": "thinking", "thinking": text, "signature": f"sim-signature-{seed}"}


def _thread(body: Any) -> dict[str, Any] | None:
    """The request's ``thread``, validated, or None when it has none."""
    thread = body.get("thread") if isinstance(body, dict) else None
    if thread is None:
        return None
    kind = thread.get("type") if isinstance(thread, dict) else None
    if kind not in ("create", "continue"):
        raise _invalid("thread.type: Input should be 'create' or 'continue'")
    assert isinstance(thread, dict)
    if kind == "continue" and not isinstance(thread.get("previous_message_id"), str):
        raise _invalid("thread.previous_message_id: Field required")
    return thread


def resume(body: Any, held: HeldConversations) -> Any:
    """``body`` with the thread its ``continue`` names before its messages.

    Raises:
        ApiError: the thread field is malformed, or no thread holds that message
            (404 with ``error.details.error_code`` ``thread_not_found``).
    """
    thread = _thread(body)
    if thread is None or thread["type"] != "continue":
        return body
    previous = thread["previous_message_id"]
    kept = held.get(previous)
    if kept is None:
        payload = _payload("not_found_error", f"thread message {previous!r} not found")
        payload["error"]["details"] = {"error_code": "thread_not_found"}
        raise ApiError(404, payload)
    new = body.get("messages")
    if new is None:
        new = []
    if not isinstance(new, list):
        return body  # refused by ``parse``
    fields = {name: kept[name] for name in _THREAD_FIELDS if name in kept}
    return {**fields, **body, "messages": [*kept["messages"], *new]}


def hold(body: Any, reply: Reply, conversation: Conversation, seed: str) -> tuple[str, Any] | None:
    """The id and thread (messages with the answer, ``system``, ``tools``) to keep for
    ``reply``, or None when the request has no ``thread``."""
    if _thread(body) is None:
        return None
    ids = Ids(seed)  # a fresh counter: the same tool_use ids ``answer`` sent
    answer = {"role": "assistant", "content": _content(reply, ids)}
    kept: dict[str, Any] = {name: body[name] for name in _THREAD_FIELDS if name in body}
    kept["messages"] = [*body["messages"], answer]
    return ids.message("msg_"), kept


def _content(reply: Reply, ids: Ids) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    blocks += [
        {
            "type": "tool_use",
            "id": call.id or ids.tool_call("toolu_"),
            "name": call.name,
            "input": call.arguments,
        }
        for call in reply.tool_calls
    ]
    return blocks


def answer(reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer:
    """The message (JSON or SSE) for ``reply``."""
    content = _content(reply, ids)
    if conversation.options.get("thinking"):
        content.insert(0, _thinking_block(reply, ids.seed))
    output = estimate_tokens(reply.text, [call.arguments for call in reply.tool_calls])
    stop = "tool_use" if reply.tool_calls else "end_turn"
    usage = {
        "input_tokens": conversation.input_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "output_tokens": output,
        "service_tier": "standard",
    }
    message = {
        "id": ids.message("msg_"),
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not conversation.stream:
        return json_answer(message)
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events: list[tuple[str | None, Any]] = [
        ("message_start", {"type": "message_start", "message": start})
    ]
    for index, block in enumerate(content):
        events += _block_events(index, block)
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": output},
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return sse_answer(events)


def _block_events(index: int, block: dict[str, Any]) -> list[tuple[str | None, Any]]:
    opening: dict[str, Any]
    if block["type"] == "text":
        opening = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in chunks(block["text"])]
    elif block["type"] == "thinking":
        opening = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            *({"type": "thinking_delta", "thinking": p} for p in chunks(block["thinking"])),
            {"type": "signature_delta", "signature": block["signature"]},
        ]
    else:
        opening = {**block, "input": {}}
        arguments = json.dumps(block["input"])
        deltas = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in ["", *chunks(arguments)]
        ]
    events: list[tuple[str | None, Any]] = [
        (
            "content_block_start",
            {"type": "content_block_start", "index": index, "content_block": opening},
        )
    ]
    if index == 0:
        events.append(("ping", {"type": "ping"}))
    events += [
        ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": d})
        for d in deltas
    ]
    events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    return events


def error_answer(error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
    """An error in the Anthropic shape (from a script reply, a validation error, or text)."""
    if isinstance(error, ApiError):
        return json_answer(error.payload, error.status)
    if isinstance(error, str):
        return json_answer(_invalid(error).payload, status)
    kind = error.type or _ERROR_TYPES.get(error.status, "api_error")
    return json_answer(_payload(kind, error.message), error.status)


def route(path: str) -> ModuleType:
    """The API answering ``path``: this module (Messages answers alike on every path)."""
    return sys.modules[__name__]
