"""A Bedrock Converse request body as a :class:`~harness.traffic.sent.SentRequest`.

The model is in the path; ``system`` is a list of text blocks; settings are
``inferenceConfig.temperature`` and, for reasoning models,
``additionalModelRequestFields`` (Anthropic's ``thinking``, or a
``reasoning_config`` / ``reasoning_effort``); tools are the ``toolSpec`` entries
of ``toolConfig.tools`` with their ``inputSchema.json``.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from harness.traffic.sent import (
    SentMessage,
    SentRequest,
    SentTool,
    effort_of_thinking,
    item_key,
    number,
)
from harness.traffic.wire import STABLE_JSON, mapping
from harness.wires.bedrock.traffic import model_of_path

__all__ = ["sent_request"]


def _block_text(block: Any) -> str:
    block = mapping(block)
    if "toolUse" in block:
        use = mapping(block["toolUse"])
        return f"call {use.get('name')}({STABLE_JSON(use.get('input') or {})})"
    if "toolResult" in block:
        result = mapping(block["toolResult"])
        return f"result {result.get('toolUseId')}: {STABLE_JSON(result.get('content'))}"
    return str(block.get("text") or "")


def _effort(extra: dict[str, Any]) -> str | None:
    if extra.get("reasoning_effort"):
        return str(extra["reasoning_effort"])
    return effort_of_thinking(extra.get("thinking") or extra.get("reasoning_config"))


def sent_request(body: dict[str, Any], url: str = "") -> SentRequest:
    """The view of a Converse body posted to ``url``."""
    system = [_block_text(b) for b in body.get("system") or [] if "text" in mapping(b)]
    messages = []
    for message in body.get("messages") or []:
        if not isinstance(message, dict):
            continue
        blocks = message.get("content") or []
        text = " ".join(t for t in (_block_text(b) for b in blocks) if t)
        messages.append(SentMessage(str(message.get("role") or "?"), text, item_key(message)))
    tools = []
    for tool in mapping(body.get("toolConfig")).get("tools") or []:
        spec = mapping(mapping(tool).get("toolSpec"))
        if spec:
            schema = mapping(spec.get("inputSchema")).get("json")
            tools.append(
                SentTool(str(spec.get("name") or "?"), schema, str(spec.get("description", "")))
            )
    extra = mapping(body.get("additionalModelRequestFields"))
    reasoning = {k: v for k, v in extra.items() if "reason" in k or k == "thinking"} or None
    return SentRequest(
        wire="bedrock",
        model=model_of_path(urlsplit(url).path),
        system="\n".join(system) if system else None,
        messages=tuple(messages),
        tools=tuple(tools),
        temperature=number(mapping(body.get("inferenceConfig")).get("temperature")),
        effort=_effort(extra),
        reasoning=reasoning,
    )
