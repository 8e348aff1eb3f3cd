"""A Responses request body as a :class:`~harness.traffic.sent.SentRequest`."""

from __future__ import annotations

from typing import Any

from harness.traffic.sent import (
    SYSTEM_ROLES,
    SentMessage,
    SentRequest,
    SentTool,
    call_text,
    item_key,
    joined,
    model_of,
    number,
)
from harness.traffic.wire import as_text, mapping

__all__ = ["sent_request"]


def _responses_item(item: dict[str, Any]) -> tuple[str, str]:
    kind = item.get("type")
    if kind == "function_call":
        return "assistant", call_text(item.get("name"), item.get("arguments"))
    if kind in ("function_call_output", "custom_tool_call_output"):
        return "tool", f"result {item.get('call_id')}: {as_text(item.get('output'))}"
    if kind == "reasoning":
        return "assistant", "(reasoning)"
    return str(item.get("role") or kind or "?"), as_text(item.get("content"))


def responses_request(body: dict[str, Any], url: str = "") -> SentRequest:
    """A Responses body: ``instructions`` and system/developer items are the system text."""
    del url
    system: list[str] = []
    if body.get("instructions"):
        system.append(as_text(body["instructions"]))
    raw = body.get("input")
    items = [{"role": "user", "content": raw}] if isinstance(raw, str) else raw or []
    messages = []
    for item in items:
        if not isinstance(item, dict):
            continue
        if item.get("role") in SYSTEM_ROLES and item.get("type", "message") == "message":
            system.append(as_text(item.get("content")))
            continue
        role, text = _responses_item(item)
        messages.append(SentMessage(role, text, item_key(item)))
    tools = tuple(
        SentTool(
            str(t.get("name") or t.get("type") or "?"),
            t.get("parameters"),
            str(t.get("description", "")),
        )
        for t in body.get("tools") or []
        if isinstance(t, dict)
    )
    reasoning = body.get("reasoning")
    effort = mapping(reasoning).get("effort")
    previous = body.get("previous_response_id")
    return SentRequest(
        wire="openai-responses",
        model=model_of(body),
        system=joined(system),
        messages=tuple(messages),
        tools=tools,
        temperature=number(body.get("temperature")),
        effort=str(effort) if effort else None,
        reasoning=reasoning,
        continues=str(previous) if previous else None,
    )


sent_request = responses_request
