"""Request views (:class:`~harness.traffic.sent.SentRequest`) of Chat Completions,
Messages and Responses bodies: one small reader per wire.

Kept apart from the traffic readers (``chat``, ``messages``, ``responses``) so
that each can move into its wire's package (``harness.wires.<name>.sent``) as
it is.
"""

from __future__ import annotations

from typing import Any, Final

from harness.traffic.sent import (
    Reader,
    SentMessage,
    SentRequest,
    SentTool,
    effort_of_thinking,
    item_key,
    number,
)
from harness.traffic.wire import STABLE_JSON, as_text, mapping

__all__ = ["READERS", "chat_request", "messages_request", "responses_request"]

_SYSTEM_ROLES: Final = ("system", "developer")


def _joined(parts: list[str]) -> str | None:
    return "\n".join(parts) if parts else None


def _call_text(name: Any, arguments: Any) -> str:
    text = arguments if isinstance(arguments, str) else STABLE_JSON(arguments or {})
    return f"call {name}({text})"


def _model(body: dict[str, Any]) -> str | None:
    value = body.get("model")
    return str(value) if value is not None else None


# -- Chat Completions -----------------------------------------------------------


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
        if role in _SYSTEM_ROLES:
            system.append(as_text(item.get("content")))
            continue
        calls = [
            _call_text(
                mapping(c.get("function")).get("name"), mapping(c.get("function")).get("arguments")
            )
            for c in item.get("tool_calls") or []
            if isinstance(c, dict)
        ]
        text = " ".join(p for p in (as_text(item.get("content")), *calls) if p)
        messages.append(SentMessage(role, text, item_key(item)))
    return SentRequest(
        wire="openai",
        model=_model(body),
        system=_joined(system),
        messages=tuple(messages),
        tools=_chat_tools(body),
        temperature=number(body.get("temperature")),
        effort=str(body["reasoning_effort"]) if body.get("reasoning_effort") else None,
        reasoning=body.get("reasoning_effort"),
    )


# -- Anthropic Messages ---------------------------------------------------------


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    block = mapping(block)
    kind = block.get("type")
    if kind == "tool_use":
        return _call_text(block.get("name"), block.get("input"))
    if kind == "tool_result":
        return f"result {block.get('tool_use_id')}: {as_text(block.get('content'))}"
    if kind in ("thinking", "redacted_thinking"):
        return f"({kind})"
    return str(block.get("text") or "")


def messages_request(body: dict[str, Any], url: str = "") -> SentRequest:
    """An Anthropic Messages body: ``system`` is a string or a list of text blocks."""
    del url
    raw_system = body.get("system")
    if isinstance(raw_system, list):
        system = _joined([_block_text(b) for b in raw_system])
    else:
        system = str(raw_system) if raw_system is not None else None
    messages = []
    for item in body.get("messages") or []:
        if not isinstance(item, dict):
            continue
        content = item.get("content")
        blocks = content if isinstance(content, list) else [content]
        text = " ".join(t for t in (_block_text(b) for b in blocks if b is not None) if t)
        messages.append(SentMessage(str(item.get("role") or "?"), text, item_key(item)))
    tools = tuple(
        SentTool(
            str(t.get("name") or t.get("type") or "?"),
            t.get("input_schema"),
            str(t.get("description", "")),
        )
        for t in body.get("tools") or []
        if isinstance(t, dict)
    )
    effort = mapping(body.get("output_config")).get("effort")
    thinking = body.get("thinking")
    reasoning = {k: body[k] for k in ("thinking", "output_config") if k in body} or None
    return SentRequest(
        wire="anthropic",
        model=_model(body),
        system=system,
        messages=tuple(messages),
        tools=tools,
        temperature=number(body.get("temperature")),
        effort=str(effort) if effort else effort_of_thinking(thinking),
        reasoning=reasoning,
    )


# -- OpenAI Responses -----------------------------------------------------------


def _responses_item(item: dict[str, Any]) -> tuple[str, str]:
    kind = item.get("type")
    if kind == "function_call":
        return "assistant", _call_text(item.get("name"), item.get("arguments"))
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
        if item.get("role") in _SYSTEM_ROLES and item.get("type", "message") == "message":
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
        model=_model(body),
        system=_joined(system),
        messages=tuple(messages),
        tools=tools,
        temperature=number(body.get("temperature")),
        effort=str(effort) if effort else None,
        reasoning=reasoning,
        continues=str(previous) if previous else None,
    )


READERS: Final[dict[str, Reader]] = {
    "openai": chat_request,
    "anthropic": messages_request,
    "openai-responses": responses_request,
}
