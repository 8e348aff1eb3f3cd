"""Protocol value types exchanged between the engine, providers and tools.

They are frozen pydantic models so that checkpoints can persist them as JSON and
load them back unchanged. Tracing fields never enter these types.
"""

from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from harness.core.text import without_surrogates

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "LLMRequest",
    "LLMResponse",
    "Message",
    "Role",
    "ToolCall",
    "ToolChoice",
    "ToolDefinition",
    "Usage",
    "new_tool_call_id",
]

# When a model sends tool arguments that are not a JSON object, adapters keep the
# raw text under this key so the engine can answer with an error observation
# instead of crashing or guessing.
RAW_ARGUMENTS_KEY = "__raw_arguments__"

_FROZEN = ConfigDict(frozen=True, extra="forbid")


def new_tool_call_id() -> str:
    """Return a fresh tool call id in the style providers use."""
    return f"call_{uuid.uuid4().hex[:24]}"


class Role(StrEnum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class ToolChoice(StrEnum):
    AUTO = "auto"
    NONE = "none"
    REQUIRED = "required"


class ToolCall(BaseModel):
    """One tool invocation requested by the model."""

    model_config = _FROZEN

    id: str = Field(default_factory=new_tool_call_id)
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name", "arguments")
    @classmethod
    def _encodable(cls, value: Any) -> Any:
        return without_surrogates(value)


class Message(BaseModel):
    """One chat message; ``tool`` messages answer the call named by ``tool_call_id``."""

    model_config = _FROZEN

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("content", "metadata")
    @classmethod
    def _encodable(cls, value: Any) -> Any:
        return without_surrogates(value)

    @classmethod
    def system(cls, content: str) -> Message:
        return cls(role=Role.SYSTEM, content=content)

    @classmethod
    def user(cls, content: str) -> Message:
        return cls(role=Role.USER, content=content)

    @classmethod
    def assistant(
        cls,
        content: str = "",
        tool_calls: tuple[ToolCall, ...] = (),
        metadata: dict[str, Any] | None = None,
    ) -> Message:
        return cls(
            role=Role.ASSISTANT, content=content, tool_calls=tool_calls, metadata=metadata or {}
        )

    @classmethod
    def tool(
        cls, tool_call_id: str, content: str, metadata: dict[str, Any] | None = None
    ) -> Message:
        return cls(
            role=Role.TOOL, content=content, tool_call_id=tool_call_id, metadata=metadata or {}
        )


class ToolDefinition(BaseModel):
    """A tool as the model sees it: name, description and JSON-schema parameters."""

    model_config = _FROZEN

    name: str
    description: str
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class Usage(BaseModel):
    """Token counts of one call, or summed over a run, the same for every provider.

    Attributes:
        input_tokens: every prompt token, cache reads and cache writes included
            (OpenAI's ``prompt_tokens``; Anthropic's ``input_tokens`` plus its
            ``cache_read_input_tokens`` and ``cache_creation_input_tokens``).
        output_tokens: generated tokens.
        cached_input_tokens: the part of ``input_tokens`` read from the prompt cache.
        cache_write_input_tokens: the part of ``input_tokens`` written to the
            prompt cache (Anthropic reports it; OpenAI has none).
        reasoning_tokens: the part of ``output_tokens`` the model spent reasoning
            (OpenAI's ``reasoning_tokens``); already in ``output_tokens``, so priced
            as output.
    """

    model_config = _FROZEN

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    reasoning_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens + other.cache_write_input_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
        )


class LLMRequest(BaseModel):
    """What the engine asks a provider for."""

    model_config = _FROZEN

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    tool_choice: ToolChoice = ToolChoice.AUTO
    model: str | None = None
    max_tokens: int | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class LLMResponse(BaseModel):
    """A provider's answer: final text and/or tool calls.

    ``metadata`` is what the provider needs to see again next turn and harness
    does not model (the Responses API's reasoning items); the engine copies it
    onto the assistant ``Message`` it appends, so it survives checkpoints.
    """

    model_config = _FROZEN

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = Field(default_factory=Usage)
    model: str | None = None
    stop_reason: str | None = None
    raw_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("text")
    @classmethod
    def _encodable(cls, value: str) -> str:
        return without_surrogates(value)  # type: ignore[no-any-return]
