"""The middleware chain's values: the context a call runs in and its result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from harness.core.messages import ToolCall
from harness.tools._protocol import Tool, ToolInput

__all__ = [
    "ToolExecutionContext",
    "ToolExecutionResult",
    "ToolExecutionStatus",
    "ToolMiddleware",
    "ToolNext",
]


class ToolExecutionStatus(StrEnum):
    COMPLETED = "completed"
    DENIED = "denied"
    SUSPENDED = "suspended"


@dataclass(frozen=True, slots=True)
class ToolExecutionContext:
    """One tool call on its way through the middleware chain.

    ``checkpoint_draft`` builds, when called, what the engine needs to resume
    the run if a middleware suspends this call (approval); it is ``None`` where
    the run cannot be paused. It is a callable because the draft copies the
    whole history and most calls never need it.
    """

    tool_call: ToolCall
    tool: Tool
    tool_input: ToolInput
    step: int = 0
    tool_call_index: int = 0
    checkpoint_draft: Callable[[], Any] | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def tool_name(self) -> str:
        return self.tool_call.name

    @property
    def arguments(self) -> dict[str, Any]:
        return self.tool_call.arguments

    def with_metadata(self, **values: Any) -> ToolExecutionContext:
        return replace(self, metadata={**self.metadata, **values})


@dataclass(frozen=True, slots=True)
class ToolExecutionResult:
    """What came of a tool call: the observation text and how it ended."""

    status: ToolExecutionStatus
    observation: str
    is_error: bool = False
    error_type: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    approval_id: str | None = None
    checkpoint_id: str | None = None

    @classmethod
    def completed(
        cls, observation: str, *, metadata: dict[str, Any] | None = None
    ) -> ToolExecutionResult:
        return cls(ToolExecutionStatus.COMPLETED, observation, metadata=metadata or {})

    @classmethod
    def error(
        cls, observation: str, error_type: str, *, metadata: dict[str, Any] | None = None
    ) -> ToolExecutionResult:
        return cls(
            ToolExecutionStatus.COMPLETED,
            observation,
            is_error=True,
            error_type=error_type,
            metadata=metadata or {},
        )

    @classmethod
    def denied(cls, observation: str, error_type: str = "tool_denied") -> ToolExecutionResult:
        return cls(ToolExecutionStatus.DENIED, observation, is_error=True, error_type=error_type)

    @classmethod
    def suspended(
        cls, observation: str, *, approval_id: str, checkpoint_id: str
    ) -> ToolExecutionResult:
        return cls(
            ToolExecutionStatus.SUSPENDED,
            observation,
            approval_id=approval_id,
            checkpoint_id=checkpoint_id,
        )

    @property
    def denied_flag(self) -> bool:
        return self.status is ToolExecutionStatus.DENIED

    @property
    def suspended_flag(self) -> bool:
        return self.status is ToolExecutionStatus.SUSPENDED


ToolNext = Callable[[ToolExecutionContext], ToolExecutionResult]
"""Calls the rest of the chain (and finally the tool)."""

ToolMiddleware = Callable[[ToolExecutionContext, ToolNext], ToolExecutionResult]
"""``(ctx, next) -> result``. Not calling ``next`` short-circuits the chain."""
