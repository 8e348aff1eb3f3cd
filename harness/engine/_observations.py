"""Turning tool results into the tool messages the model reads next."""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.messages import Message, ToolCall
from harness.tools import ToolExecutionResult

__all__ = ["append_tool_observations", "observation_message"]


def observation_message(call: ToolCall, result: ToolExecutionResult) -> Message:
    """The tool message answering ``call``; errors are flagged for providers that care."""
    metadata: dict[str, object] = {"tool_name": call.name, "status": result.status.value}
    if result.is_error:
        metadata["is_error"] = True
        metadata["error_type"] = result.error_type
    return Message.tool(call.id, result.observation, metadata)


def append_tool_observations(messages: list[Message], observations: Sequence[Message]) -> int:
    """Append observations to the running history; shared by normal and resumed runs.

    Returns how many of them are errors.
    """
    messages.extend(observations)
    return sum(1 for m in observations if m.metadata.get("is_error"))
