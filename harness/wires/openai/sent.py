"""A Chat Completions request body as a :class:`~harness.traffic.sent.SentRequest`."""

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


def _chat_tools(body: dict[str, Any]) -> tuple[SentTool, ...]:
    tools = []
    for tool in body.get("tools") or body.get("functions") or []:
        if not isinstance(tool, dict):
            continue
        spec = mapping(tool.get("function") or tool.get("custom") or tool)
        name = spec.get("name") or tool.get("type") or "?"
        tools.append(SentTool(str(name), spec.get("parameters"), str(spec.get("description", ""))))
    return tuple(tools)


def chat_request(body: dict[str, Any], url: str = "") -> SentRequest:
    """A Chat Completions body: system and developer messages are the system text."""
    del url
    system: list[str] = []
    messages = []
    for item in body.get("messages") or []:
        if not isinstance(item, dict):
            continue
        role = str(item.get("role") or "?")
        if role in SYSTEM_ROLES:
            system.append(as_text(item.get("content")))
            continue
        calls = [
            call_text(
                mapping(c.get("function")).get("name"), mapping(c.get("function")).get("arguments")
            )
            for c in item.get("tool_calls") or []
            if isinstance(c, dict)
        ]
        text = " ".join(p for p in (as_text(item.get("content")), *calls) if p)
        messages.append(SentMessage(role, text, item_key(item)))
    return SentRequest(
        wire="openai",
        model=model_of(body),
        system=joined(system),
        messages=tuple(messages),
        tools=_chat_tools(body),
        temperature=number(body.get("temperature")),
        effort=str(body["reasoning_effort"]) if body.get("reasoning_effort") else None,
        reasoning=body.get("reasoning_effort"),
    )


sent_request = chat_request
