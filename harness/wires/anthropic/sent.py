"""An Anthropic Messages request body as a :class:`~harness.traffic.sent.SentRequest`."""

from __future__ import annotations

from typing import Any

from harness.traffic.sent import (
    SentMessage,
    SentRequest,
    SentTool,
    call_text,
    effort_of_thinking,
    item_key,
    joined,
    model_of,
    number,
)
from harness.traffic.wire import as_text, mapping

__all__ = ["sent_request"]


def _block_text(block: Any) -> str:
    if isinstance(block, str):
        return block
    block = mapping(block)
    kind = block.get("type")
    if kind == "tool_use":
        return call_text(block.get("name"), block.get("input"))
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
        system = joined([_block_text(b) for b in raw_system])
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
        model=model_of(body),
        system=system,
        messages=tuple(messages),
        tools=tools,
        temperature=number(body.get("temperature")),
        effort=str(effort) if effort else effort_of_thinking(thinking),
        reasoning=reasoning,
    )


sent_request = messages_request
