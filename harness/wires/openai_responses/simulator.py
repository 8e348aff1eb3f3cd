"""OpenAI Responses API: request validation and answers in the real wire shapes.

A response answered with ``store`` (true by default) is kept by the server
(``_held``): a request naming it as ``previous_response_id`` continues its
conversation (earlier input and output, then the new input); an id nothing kept
is refused as the real API refuses it. A replayed reasoning item must carry its
``encrypted_content`` unless stored, and be followed by another item, and every
``function_call_output`` must answer a ``function_call`` of the conversation.
A request that sets ``reasoning`` gets a reasoning item (encrypted when
``include`` asks for it) before its output.
"""

from __future__ import annotations

import hashlib
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
from harness.wires.openai.simulator import error_answer as chat_error_answer
from harness.wires.openai_responses.events import stream_events

if TYPE_CHECKING:
    from harness.simulator.wire_api import HeldConversations

__all__ = ["REQUEST_ID_HEADER", "answer", "error_answer", "hold", "parse", "resume", "route"]

# The header the real API sends its request id in (the simulator sends one too).
REQUEST_ID_HEADER: Final = "x-request-id"

_ENCRYPTED = "reasoning.encrypted_content"
_ROLES = ("user", "assistant", "system", "developer")
_REASONING_TOKENS = 16
# Set by ``resume`` on the body it expands: how many leading items the server kept.
_HELD = "__harness_held_items"


def _invalid(
    message: str, param: str | None = None, code: str | None = None, status: int = 400
) -> ApiError:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return ApiError(status, {"error": error})


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    raw = body.get("input")
    if isinstance(raw, str):
        return [{"type": "message", "role": "user", "content": raw}]
    if not isinstance(raw, list) or not raw:
        raise _invalid(
            "Missing required parameter: 'input'.", "input", "missing_required_parameter"
        )
    items = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise _invalid(f"Invalid type for 'input[{index}]': expected an object.", "input")
        kind = item.get("type", "message")
        if kind == "message" and item.get("role") not in _ROLES:
            allowed = ", ".join(f"'{r}'" for r in _ROLES)
            raise _invalid(
                f"Invalid value: {item.get('role')!r}. Supported values are: {allowed}.",
                f"input[{index}].role",
                "invalid_value",
            )
        items.append({**item, "type": kind, "typed": "type" in item})
    return items


def _check_items(items: list[dict[str, Any]], store: bool, held: int = 0) -> None:
    calls = {str(i.get("call_id")) for i in items if i["type"] == "function_call"}
    answered = {str(i.get("call_id")) for i in items if i["type"] == "function_call_output"}
    for index, item in enumerate(items):
        if item["type"] == "function_call_output" and str(item.get("call_id")) not in calls:
            raise _invalid(
                f"No tool call found for function call output with call_id {item.get('call_id')}.",
                "input",
            )
        if item["type"] == "function_call" and str(item.get("call_id")) not in answered:
            raise _invalid(
                f"No tool output found for function call {item.get('call_id')}.", "input"
            )
        if item["type"] == "reasoning":
            # The server kept the first ``held`` items itself: none needs replaying.
            if not store and index >= held and not item.get("encrypted_content"):
                raise _invalid(
                    f"Item with id '{item.get('id')}' not found. Items are not persisted when "
                    "`store` is set to false. Try again with `store` set to true, or remove "
                    "this item from your input.",
                    "input",
                    status=404,
                )
            following = items[index + 1] if index + 1 < len(items) else None
            # The item the reasoning preceded: an output item, not a plain
            # ``{"role": "assistant", "content": ...}`` message (refused for real).
            if following is None or following["type"] == "reasoning" or not following["typed"]:
                raise _invalid(
                    f"Item '{item.get('id')}' of type 'reasoning' was provided without its "
                    "required following item.",
                    "input",
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
        raise _invalid(
            "Missing required parameter: 'model'.", "model", "missing_required_parameter"
        )
    previous = body.get("previous_response_id")
    if previous is not None and not isinstance(previous, str):
        raise _invalid(
            "Invalid type for 'previous_response_id': expected a string.", "previous_response_id"
        )
    items = _items(body)
    held = body.get(_HELD)
    _check_items(
        items, store=body.get("store") is not False, held=held if isinstance(held, int) else 0
    )
    outputs = [str(i.get("output", "")) for i in items if i["type"] == "function_call_output"]
    trailing: list[str] = []
    for item in reversed(items):
        if item["type"] != "function_call_output":
            break
        trailing.insert(0, str(item.get("output", "")))
    users = [text_of(i.get("content")) for i in items if i.get("role") == "user"]
    turns, in_turn = 0, False
    for item in items:
        assistant = (
            item["type"] in ("function_call", "reasoning") or item.get("role") == "assistant"
        )
        turns += assistant and not in_turn
        in_turn = assistant
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict)]
    return Conversation(
        model=body["model"],
        stream=bool(body.get("stream")),
        assistant_turns=turns,
        last_user_text=users[-1] if users else None,
        tool_results=tuple(outputs),
        trailing_tool_results=tuple(trailing),
        input_tokens=estimate_tokens(
            items, body.get("instructions") or "", tools, messages=len(items)
        ),
        options={
            "reasoning": isinstance(body.get("reasoning"), dict),
            "encrypted": _ENCRYPTED in (body.get("include") or []),
            "echo": {
                "instructions": body.get("instructions"),
                "max_output_tokens": body.get("max_output_tokens"),
                "store": body.get("store") is not False,
                "previous_response_id": previous or None,
                "tool_choice": body.get("tool_choice", "auto"),
                "tools": tools,
                "reasoning": body.get("reasoning") or {"effort": None, "summary": None},
            },
        },
        tool_names=tuple(str(t.get("name", "")) for t in tools),
        system="\n".join(
            [str(body.get("instructions") or "")]
            + [text_of(i.get("content")) for i in items if i.get("role") in ("system", "developer")]
        ).strip(),
    )


def _as_items(raw: Any) -> Any:
    """The input as a list of items (a string is one user message), else as it was."""
    return [{"type": "message", "role": "user", "content": raw}] if isinstance(raw, str) else raw


def resume(body: Any, held: HeldConversations) -> Any:
    """``body`` with the stored conversation its ``previous_response_id`` names before its input.

    Instructions and tools are not carried over, as the real API does not.

    Raises:
        ApiError: no response with that id is stored (as the real API answers).
    """
    previous = body.get("previous_response_id") if isinstance(body, dict) else None
    if not previous or not isinstance(previous, str):
        return body
    kept = held.get(previous)
    if kept is None:
        raise _invalid(
            f"Previous response with id '{previous}' not found.",
            "previous_response_id",
            "previous_response_not_found",
        )
    new = _as_items(body.get("input"))
    if not isinstance(new, list):
        return body  # the missing or malformed input is refused by ``parse``
    return {**body, "input": [*kept, *new], _HELD: len(kept)}


def hold(body: Any, reply: Reply, conversation: Conversation, seed: str) -> tuple[str, Any] | None:
    """The id and conversation (input items, then output items) to keep for ``reply``,
    or None when the request set ``store: false``."""
    if not isinstance(body, dict) or body.get("store") is False:
        return None
    ids = Ids(seed)  # a fresh counter: the same output ids ``answer`` sent
    output = _output(reply, conversation, ids)
    return ids.message("resp_"), [*_as_items(body["input"]), *output]


def _output(reply: Reply, conversation: Conversation, ids: Ids) -> list[dict[str, Any]]:
    output: list[dict[str, Any]] = []
    if conversation.options["reasoning"]:
        item: dict[str, Any] = {"id": ids.message("rs_"), "type": "reasoning", "summary": []}
        if conversation.options["encrypted"]:
            # Opaque, as the real one; derived from the request so recordings repeat.
            digest = hashlib.sha256(ids.seed.encode()).hexdigest()
            item["encrypted_content"] = f"gAAAAABsim{digest}"
        output.append(item)
    if reply.text or not reply.tool_calls:
        output.append(
            {
                "id": ids.message("msg_"),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {"type": "output_text", "text": reply.text, "annotations": [], "logprobs": []}
                ],
            }
        )
    for position, call in enumerate(reply.tool_calls):
        output.append(
            {
                "id": f"fc_sim{ids.seed}x{position}",
                "type": "function_call",
                "status": "completed",
                "arguments": json.dumps(call.arguments),
                "call_id": call.id or ids.tool_call("call_"),
                "name": call.name,
            }
        )
    return output


def _usage(conversation: Conversation, output: list[dict[str, Any]]) -> dict[str, Any]:
    reasoning = _REASONING_TOKENS if conversation.options["reasoning"] else 0
    visible = [i for i in output if i["type"] != "reasoning"]
    tokens = estimate_tokens(visible) + reasoning
    return {
        "input_tokens": conversation.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning},
        "total_tokens": conversation.input_tokens + tokens,
    }


def _response(
    conversation: Conversation, ids: Ids, model: str, status: str, output: list[Any]
) -> dict[str, Any]:
    echo = conversation.options["echo"]
    done = status == "completed"
    return {
        "id": ids.message("resp_"),
        "object": "response",
        "created_at": ids.created,
        "status": status,
        "background": False,
        "completed_at": ids.created if done else None,
        "error": None,
        "incomplete_details": None,
        "instructions": echo["instructions"],
        "max_output_tokens": echo["max_output_tokens"],
        "model": model,
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": echo["previous_response_id"],
        "reasoning": echo["reasoning"],
        "service_tier": "default",
        "store": echo["store"],
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": echo["tool_choice"],
        "tools": echo["tools"],
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": _usage(conversation, output) if done else None,
        "user": None,
        "metadata": {},
    }


def answer(reply: Reply, conversation: Conversation, ids: Ids, model: str) -> Answer:
    """The response (JSON or SSE) for ``reply``."""
    output = _output(reply, conversation, ids)
    final = _response(conversation, ids, model, "completed", output)
    if not conversation.stream:
        return json_answer(final)
    start = _response(conversation, ids, model, "in_progress", [])
    events = stream_events(final, start, split=chunks)
    return sse_answer([(event["type"], event) for event in events])


def error_answer(error: ErrorReply | ApiError | str, status: int = 400) -> Answer:
    """An error in the OpenAI shape, as Chat Completions has it."""
    return chat_error_answer(error, status)


def route(path: str) -> ModuleType:
    """The API answering ``path``: this module (The Responses API answers alike on every path)."""
    return sys.modules[__name__]
