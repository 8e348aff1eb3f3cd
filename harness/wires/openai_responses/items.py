"""Harness messages <-> Responses API items, as plain JSON.

Input: system messages become ``instructions``; user text a ``message``; an
assistant turn its ``message`` and ``function_call`` items; a tool result a
``function_call_output``.

Reasoning items. A reasoning model's output starts with ``reasoning`` items
that must come back, each followed by the very item it preceded (the API pairs
them by item id and answers 400 "provided without its required following item"
otherwise). So when a response holds reasoning, the assistant message keeps
under ``metadata[ITEMS_KEY]`` the outline of its output: each reasoning item in
full (``id``, ``summary``, ``encrypted_content``) and, for the other items, only
their type and ids. On the way back the outline is walked in order and filled
with the message's *current* text and tool calls, so a history edited since
(a compacted answer, a mutant's changed call) is sent as it now stands, and an
item the message no longer has is left out rather than resent stale.

Every function here takes and returns plain JSON, so a cassette layer or a
mutant operator can use them on recorded bodies without the SDK.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from harness.core.errors import ProviderError
from harness.core.messages import LLMResponse, Message, Role, ToolCall, ToolDefinition, Usage
from harness.providers.tool_arguments import encode_tool_arguments, parse_tool_arguments

__all__ = [
    "ITEMS_KEY",
    "from_response",
    "response_text",
    "responses_usage",
    "to_input_items",
    "to_response_tools",
]

ITEMS_KEY = "openai_responses_items"
_PROVIDER = "openai-responses"
# What a reasoning item needs to be accepted again; ``status`` is output-only.
_REASONING_KEYS = ("id", "type", "summary", "content", "encrypted_content")


def to_response_tools(tools: tuple[ToolDefinition, ...]) -> list[dict[str, Any]]:
    """Function tools; ``strict: false`` since the Responses API defaults to strict schemas."""
    return [
        {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": tool.parameters,
            "strict": False,
        }
        for tool in tools
    ]


def to_input_items(messages: tuple[Message, ...]) -> tuple[str, list[dict[str, Any]]]:
    """The ``instructions`` text (system messages) and the input items, in order."""
    system: list[str] = []
    items: list[dict[str, Any]] = []
    for index, message in enumerate(messages):
        if message.role is Role.SYSTEM:
            if message.content:
                system.append(message.content)
        elif message.role is Role.USER:
            items.append({"role": "user", "content": message.content})
        elif message.role is Role.ASSISTANT:
            items.extend(_assistant_items(message))
        else:
            if not message.tool_call_id:
                raise ProviderError(
                    f"message {index} has role 'tool' but no tool_call_id; build tool results "
                    "with Message.tool(tool_call_id, content)",
                    provider=_PROVIDER,
                )
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message.content,
                }
            )
    return "\n\n".join(system), items


def _call_item(call: ToolCall, item_id: str | None) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call"}
    if item_id:
        item["id"] = item_id
    item |= {
        "call_id": call.id,
        "name": call.name,
        "arguments": encode_tool_arguments(call.arguments),
    }
    if item_id:
        item["status"] = "completed"
    return item


def _text_item(text: str, item_id: str | None) -> dict[str, Any]:
    if not item_id:
        return {"role": "assistant", "content": text}
    return {
        "type": "message",
        "id": item_id,
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }


def _assistant_items(message: Message) -> list[dict[str, Any]]:
    outline = message.metadata.get(ITEMS_KEY)
    calls = {call.id: call for call in message.tool_calls}
    items: list[dict[str, Any]] = []
    text_sent = not message.content
    for entry in outline if isinstance(outline, list) else ():
        if not isinstance(entry, Mapping):
            continue
        kind = entry.get("type")
        if kind == "reasoning":
            items.append({k: entry[k] for k in _REASONING_KEYS if entry.get(k) is not None})
        elif kind == "message" and not text_sent:
            items.append(_text_item(message.content, _str(entry.get("id"))))
            text_sent = True
        elif kind == "function_call":
            call = calls.pop(str(entry.get("call_id")), None)
            if call is not None:
                items.append(_call_item(call, _str(entry.get("id"))))
    if not text_sent:
        items.append(_text_item(message.content, None))
    items.extend(_call_item(call, None) for call in calls.values())
    return _drop_orphan_reasoning(items)


def _drop_orphan_reasoning(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A reasoning item must be followed by the item it preceded, or the API refuses
    the request (400); one whose item is gone (last, or before more reasoning) is left out."""
    kept: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        following = items[index + 1] if index + 1 < len(items) else None
        if item.get("type") == "reasoning" and (
            following is None or following.get("type") == "reasoning"
        ):
            continue
        kept.append(item)
    return kept


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def responses_usage(usage: Mapping[str, Any] | None) -> Usage:
    """Normalise Responses usage: ``input_tokens`` already counts cached and written tokens."""
    if not isinstance(usage, Mapping):
        return Usage()
    details = usage.get("input_tokens_details") or {}
    output_details = usage.get("output_tokens_details") or {}
    return Usage(
        input_tokens=int(usage.get("input_tokens") or 0),
        output_tokens=int(usage.get("output_tokens") or 0),
        cached_input_tokens=int(details.get("cached_tokens") or 0),
        cache_write_input_tokens=int(details.get("cache_write_tokens") or 0),
        reasoning_tokens=int(output_details.get("reasoning_tokens") or 0),
    )


def response_text(output: Iterable[Any]) -> tuple[str, str]:
    """The ``output_text`` and the ``refusal`` text of the message items, each joined."""
    texts: list[str] = []
    refusals: list[str] = []
    for item in output:
        if not isinstance(item, Mapping) or item.get("type") != "message":
            continue
        for part in item.get("content") or ():
            if not isinstance(part, Mapping):
                continue
            if part.get("type") == "output_text":
                texts.append(str(part.get("text") or ""))
            elif part.get("type") == "refusal":
                refusals.append(str(part.get("refusal") or ""))
    return "".join(texts), "".join(refusals)


def _outline(output: list[Any]) -> list[dict[str, Any]]:
    outline: list[dict[str, Any]] = []
    for item in output:
        if not isinstance(item, Mapping):
            continue
        kind = item.get("type")
        if kind == "reasoning":
            outline.append({k: item[k] for k in _REASONING_KEYS if item.get(k) is not None})
        elif kind == "message":
            outline.append({"type": "message", "id": item.get("id")})
        elif kind == "function_call":
            outline.append(
                {"type": "function_call", "id": item.get("id"), "call_id": item.get("call_id")}
            )
    return outline


def _stop_reason(data: Mapping[str, Any], calls: bool, refused: bool) -> str:
    status = data.get("status")
    if status == "incomplete":
        details = data.get("incomplete_details") or {}
        return str(details.get("reason") or "incomplete")
    if refused:
        return "refusal"
    return "tool_calls" if calls else "stop"


def from_response(data: Mapping[str, Any]) -> LLMResponse:
    """Map a Responses API ``Response`` object (plain JSON) to an ``LLMResponse``.

    Raises:
        ProviderError: the response failed, or is not a Response object.
    """
    if data.get("status") == "failed" or data.get("error"):
        error = data.get("error") or {}
        message = error.get("message") if isinstance(error, Mapping) else None
        raise ProviderError(
            f"OpenAI Responses: the response failed ({message or 'no error message'}); "
            "retry, or check the request",
            provider=_PROVIDER,
        )
    output = data.get("output")
    if not isinstance(output, list):
        raise ProviderError(
            f"OpenAI Responses returned an object without an output list (id {data.get('id')}); "
            "check that the server at base_url speaks the Responses API",
            provider=_PROVIDER,
        )
    calls = tuple(
        ToolCall(
            id=str(item.get("call_id") or item.get("id") or ""),
            name=str(item.get("name") or ""),
            arguments=parse_tool_arguments(item.get("arguments")),
        )
        for item in output
        if isinstance(item, Mapping) and item.get("type") == "function_call"
    )
    text, refusal = response_text(output)
    outline = _outline(output)
    reasoning = any(entry["type"] == "reasoning" for entry in outline)
    return LLMResponse(
        text=text or refusal,
        tool_calls=calls,
        usage=responses_usage(data.get("usage")),
        model=_str(data.get("model")),
        stop_reason=_stop_reason(data, bool(calls), bool(refusal) and not text),
        raw_id=_str(data.get("id")),
        metadata={ITEMS_KEY: outline} if reasoning else {},
    )
