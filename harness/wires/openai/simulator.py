"""OpenAI Chat Completions: request validation and answers in the real wire shapes."""

from __future__ import annotations

import json
import sys
from types import ModuleType
from typing import Any, Final

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

__all__ = ["REQUEST_ID_HEADER", "answer", "error_answer", "parse", "route"]

# The header the real API sends its request id in (the simulator sends one too).
REQUEST_ID_HEADER: Final = "x-request-id"

_ROLES = ("system", "assistant", "user", "function", "tool", "developer")
_RATE_LIMITED = 429
_SERVER_ERROR = 500


def _invalid(message: str, param: str | None = None, code: str | None = None) -> ApiError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ApiError(400, {"error": error})


def _check_tool_flow(messages: list[Any]) -> None:
    """Every tool message answers the assistant tool_calls right before it, and all of them."""
    open_ids: set[str] = set()
    pending: dict[str, int] = {}
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_ids:
                raise _invalid(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    f"messages.[{index}].role",
                )
            pending.pop(call_id, None)
            continue
        if pending:
            _unanswered(pending)
        open_ids = set()
        if role == "assistant" and message.get("tool_calls"):
            open_ids = {
                str(call.get("id")) for call in message["tool_calls"] if isinstance(call, dict)
            }
            pending = dict.fromkeys(open_ids, index)
    if pending:
        _unanswered(pending)


def _unanswered(pending: dict[str, int]) -> None:
    index = next(iter(pending.values()))
    raise _invalid(
        "An assistant message with 'tool_calls' must be followed by tool messages responding "
        "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
        + ", ".join(sorted(pending)),
        f"messages.[{index}].role",
    )


def parse(body: Any) -> Conversation:
    """Validate a request body as the real API does and describe it.

    Raises:
        ApiError: the body is not a request the real API would accept.
    """
    if not isinstance(body, dict):
        raise _invalid(
            "We could not parse the JSON body of your request. The OpenAI API "
            "expects a JSON payload."
        )
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise _invalid("you must provide a model parameter")
    messages = body.get("messages")
    if messages is None:
        raise _invalid(
            "Missing required parameter: 'messages'.", "messages", "missing_required_parameter"
        )
    if not isinstance(messages, list) or not messages:
        raise _invalid(
            "Invalid 'messages': empty array. Expected an array with minimum length 1, "
            "but got an empty array instead.",
            "messages",
            "empty_array",
        )
    for index, message in enumerate(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role not in _ROLES:
            allowed = ", ".join(f"'{r}'" for r in _ROLES)
            raise _invalid(
                f"Invalid value: {role!r}. Supported values are: {allowed}.",
                f"messages[{index}].role",
                "invalid_value",
            )
    _check_tool_flow(messages)
    results = [text_of(m.get("content")) for m in messages if m["role"] == "tool"]
    trailing: list[str] = []
    for message in reversed(messages):
        if message["role"] != "tool":
            break
        trailing.insert(0, text_of(message.get("content")))
    users = [text_of(m.get("content")) for m in messages if m["role"] == "user"]
    stream_options = body.get("stream_options") or {}
    return Conversation(
        model=body["model"],
        stream=bool(body.get("stream")),
        assistant_turns=sum(1 for m in messages if m["role"] == "assistant"),
        last_user_text=users[-1] if users else None,
        tool_results=tuple(results),
        trailing_tool_results=tuple(trailing),
        input_tokens=estimate_tokens(messages, body.get("tools") or [], messages=len(messages)),
        options={"include_usage": bool(stream_options.get("include_usage"))},
        tool_names=tuple(
            str((tool.get("function") or {}).get("name", "")) for tool in body.get("tools") or []
        ),
        system="\n".join(
            text_of(m.get("content")) for m in messages if m["role"] in ("system", "developer")
        ),
    )


def _usage(conversation: Conversation, output: int) -> dict[str, Any]:
    return {
        "prompt_tokens": conversation.input_tokens,
        "completion_tokens": output,
        "total_tokens": conversation.input_tokens + output,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def _calls(reply: Reply, ids: Ids) -> list[dict[str, Any]]:
    return [
        {
            "id": call.id or ids.tool_call("call_"),
            "type": "function",
            "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
        }
        for call in reply.tool_calls
    ]


def answer(reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer:
    """The completion (JSON or SSE) for ``reply``."""
    calls = _calls(reply, ids)
    output = estimate_tokens(reply.text, [c["function"] for c in calls])
    finish = "tool_calls" if calls else "stop"
    base = {
        "id": ids.message("chatcmpl-"),
        "object": "chat.completion",
        "created": ids.created,
        "model": model,
    }
    tail = {"service_tier": "default", "system_fingerprint": "fp_harness_sim"}
    if not conversation.stream:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": reply.text or None,
            "refusal": None,
            "annotations": [],
        }
        if calls:
            message["tool_calls"] = calls
        choice = {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
        return json_answer(
            {**base, "choices": [choice], "usage": _usage(conversation, output), **tail}
        )
    return sse_answer(
        _stream(
            reply.text,
            calls,
            {**base, "object": "chat.completion.chunk", **tail},
            finish,
            _usage(conversation, output) if conversation.options["include_usage"] else None,
        )
    )


def _stream(
    text: str,
    calls: list[dict[str, Any]],
    base: dict[str, Any],
    finish: str,
    usage: dict[str, Any] | None,
) -> list[tuple[str | None, Any]]:
    def chunk(delta: dict[str, Any], reason: str | None = None) -> tuple[str | None, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": reason}
        extra = {"usage": None} if usage is not None else {}
        return None, {**base, "choices": [choice], **extra}

    heads = [
        {
            "index": position,
            "id": call["id"],
            "type": "function",
            "function": {"name": call["function"]["name"], "arguments": ""},
        }
        for position, call in enumerate(calls)
    ]
    first: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
    if calls and not text:  # as the real API: the first call rides on the role chunk
        first = {"role": "assistant", "content": None, "tool_calls": heads[:1], "refusal": None}
    events: list[tuple[str | None, Any]] = [chunk(first)]
    events += [chunk({"content": piece}) for piece in chunks(text)]
    for position, call in enumerate(calls):
        if position or text:
            events.append(chunk({"tool_calls": [heads[position]]}))
        events += [
            chunk({"tool_calls": [{"index": position, "function": {"arguments": piece}}]})
            for piece in chunks(call["function"]["arguments"])
        ]
    events.append(chunk({}, finish))
    if usage is not None:
        events.append((None, {**base, "choices": [], "usage": usage}))
    events.append((None, "[DONE]"))
    return events


def error_answer(error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
    """An error in the OpenAI shape (from a script reply, a validation error, or text)."""
    if isinstance(error, ApiError):
        return json_answer(error.payload, error.status)
    if isinstance(error, str):
        return json_answer(_invalid(error).payload, status)
    if error.status == _RATE_LIMITED:
        kind, code = error.type or "requests", "rate_limit_exceeded"
    else:
        kind = error.type or (
            "server_error" if error.status >= _SERVER_ERROR else "invalid_request_error"
        )
        code = None
    body = {"error": {"message": error.message, "type": kind, "param": None, "code": code}}
    return json_answer(body, error.status)


def route(path: str) -> ModuleType:
    """The API answering ``path``: this module (Chat Completions answers alike on every path)."""
    return sys.modules[__name__]
