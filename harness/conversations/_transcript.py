"""What a conversation produced: its messages in order, why it ended, what the user did."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from harness.core.messages import ToolCall, Usage

__all__ = ["ChatMessage", "ConversationResult", "StopReason", "UserTurn"]

# user_stop: the user said the stop token; goal_reached: checks.state held (stop.on_goal);
# max_turns: the limit; script_end: the scripted turns ran out; no_branch: no branch of
# the graph matched the agent's reply; user_silent: the user said nothing.
StopReason = Literal[
    "user_stop", "goal_reached", "max_turns", "script_end", "no_branch", "user_silent"
]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One message of the conversation: ``user`` (the simulated user) or ``assistant``."""

    role: Literal["user", "assistant"]
    content: str

    def as_dict(self) -> dict[str, str]:
        """``{"role": ..., "content": ...}``, the history a foreign target receives."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class UserTurn:
    """What the user did in one turn: the tools they ran, then what they said."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)


@dataclass(frozen=True, slots=True)
class ConversationResult:
    """A finished conversation.

    Attributes:
        messages: every message in order (the stop message included, though the
            agent never saw it).
        stop_reason: why it ended.
        turns: how many user turns were taken.
        user_tool_calls: the tools the user ran, in order.
        user_usage: the tokens the user model spent.
        trace_path: where its trace was written (None: tracing off).
    """

    messages: tuple[ChatMessage, ...]
    stop_reason: StopReason
    turns: int
    user_tool_calls: tuple[ToolCall, ...] = ()
    user_usage: Usage = field(default_factory=Usage)
    trace_path: Path | None = None
    trace_id: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def said(self) -> tuple[str, ...]:
        """What the agent said, turn by turn."""
        return tuple(m.content for m in self.messages if m.role == "assistant")

    @property
    def last_reply(self) -> str:
        """The agent's last message ("" when it never answered)."""
        said = self.said()
        return said[-1] if said else ""
