"""A Gemini request body as a :class:`~harness.traffic.sent.SentRequest`.

The model is in the path; the system text is ``systemInstruction``; the
settings are under ``generationConfig`` (``temperature``, ``thinkingConfig``
with a ``thinkingLevel`` or a ``thinkingBudget``); tools are the
``functionDeclarations`` of ``tools``. Keys are read in camelCase or
snake_case, as the API accepts both.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from harness.traffic.sent import SentMessage, SentRequest, SentTool, item_key, number
from harness.traffic.wire import STABLE_JSON, mapping
from harness.wires.gemini.parts import field, model_of_path

__all__ = ["sent_request"]


def _part_text(part: Any) -> str:
    part = mapping(part)
    call = mapping(field(part, "functionCall"))
    if call:
        return f"call {call.get('name')}({STABLE_JSON(call.get('args') or {})})"
    result = mapping(field(part, "functionResponse"))
    if result:
        return f"result {result.get('name')}: {STABLE_JSON(result.get('response'))}"
    return str(part.get("text") or "")


def _texts(content: Any) -> str:
    parts = mapping(content).get("parts")
    return " ".join(t for t in (_part_text(p) for p in parts or []) if t)


def _effort(thinking: dict[str, Any]) -> str | None:
    level = field(thinking, "thinkingLevel")
    if level:
        return str(level).lower()
    budget = field(thinking, "thinkingBudget")
    return f"budget:{budget}" if budget is not None else None


def sent_request(body: dict[str, Any], url: str = "") -> SentRequest:
    """The view of a ``generateContent`` body posted to ``url``."""
    system = field(body, "systemInstruction")
    messages = []
    for content in body.get("contents") or []:
        if not isinstance(content, dict):
            continue
        role = str(content.get("role") or "user")
        messages.append(
            SentMessage(
                "assistant" if role == "model" else role, _texts(content), item_key(content)
            )
        )
    tools = []
    for tool in body.get("tools") or []:
        for declaration in field(mapping(tool), "functionDeclarations") or []:
            declaration = mapping(declaration)
            schema = field(declaration, "parametersJsonSchema") or declaration.get("parameters")
            tools.append(
                SentTool(
                    str(declaration.get("name") or "?"),
                    schema,
                    str(declaration.get("description", "")),
                )
            )
    config = mapping(field(body, "generationConfig"))
    thinking = mapping(field(config, "thinkingConfig"))
    return SentRequest(
        wire="gemini",
        model=model_of_path(urlsplit(url).path),
        system=_texts(system) if isinstance(system, dict) else None,
        messages=tuple(messages),
        tools=tuple(tools),
        temperature=number(config.get("temperature")),
        effort=_effort(thinking) if thinking else None,
        reasoning=thinking or None,
    )
