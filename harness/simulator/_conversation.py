"""A provider-neutral view of a validated request, and the usage it costs."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

__all__ = ["ApiError", "Conversation", "estimate_tokens", "text_of"]

_CHARS_PER_TOKEN = 4
_TOKENS_PER_MESSAGE = 4


class ApiError(Exception):
    """A request the real API would refuse; carries the provider's error body."""

    def __init__(self, status: int, payload: dict[str, Any]) -> None:
        super().__init__(json.dumps(payload))
        self.status = status
        self.payload = payload


@dataclass(frozen=True)
class Conversation:
    """What the script engine needs to know about one request.

    Attributes:
        model: the requested model.
        stream: whether an SSE stream was asked for.
        assistant_turns: assistant messages already in the conversation.
        last_user_text: text of the last user message (tool results excluded).
        tool_results: every tool result text, in order.
        trailing_tool_results: the tool results that end the conversation.
        input_tokens: a realistic estimate of the prompt size.
        options: provider-specific flags (e.g. ``include_usage``).
        tool_names: the names of the tools the request offers.
        system: the request's system text (instructions), which tells its role
            (``harness.core.roles``): ``when: {role: user}`` scripts the simulated user.
    """

    model: str
    stream: bool
    assistant_turns: int
    last_user_text: str | None
    tool_results: tuple[str, ...]
    trailing_tool_results: tuple[str, ...]
    input_tokens: int
    options: dict[str, Any]
    tool_names: tuple[str, ...] = ()
    system: str = ""


def text_of(content: Any) -> str:
    """Plain text of message content given as a string or a list of blocks/parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                if isinstance(block.get("text"), str):
                    parts.append(block["text"])
                elif "content" in block:
                    parts.append(text_of(block["content"]))
        return "\n".join(parts)
    return ""


def estimate_tokens(*values: Any, messages: int = 0) -> int:
    """About four characters per token, plus a few tokens of framing per message."""
    chars = 0
    for value in values:
        chars += (
            len(value) if isinstance(value, str) else len(json.dumps(value, ensure_ascii=False))
        )
    return max(1, chars // _CHARS_PER_TOKEN + messages * _TOKENS_PER_MESSAGE)
