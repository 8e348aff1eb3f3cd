"""Context building and compaction that never splits a tool call from its result."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import Message, Role, ToolCall
from harness.engine._context import ContextCompactor


def _history(shape: list[tuple[str, int]]) -> list[Message]:
    messages = [Message.system("sys"), Message.user("the task")]
    for number, (kind, size) in enumerate(shape):
        if kind == "calls":
            calls = tuple(ToolCall(id=f"c{number}-{i}", name="read") for i in range(1 + size % 3))
            messages.append(Message.assistant("", calls))
            messages.extend(Message.tool(c.id, "x" * size * 10) for c in calls)
        else:
            messages.append(Message.user("y" * size * 10))
    return messages


def _pairs_intact(messages: list[Message]) -> bool:
    open_ids: set[str] = set()
    for message in messages:
        if message.role is Role.TOOL:
            if message.tool_call_id not in open_ids:
                return False
            open_ids.discard(message.tool_call_id)
        elif message.role is Role.ASSISTANT and message.tool_calls:
            if open_ids:
                return False
            open_ids = {c.id for c in message.tool_calls}
        elif open_ids:
            return False
    return True


@pytest.mark.deep
@settings(max_examples=150, deadline=None)
@given(
    shape=st.lists(st.tuples(st.sampled_from(["calls", "user"]), st.integers(1, 60)), max_size=40),
    budget=st.integers(1000, 8000),
    keep=st.integers(1, 5),
)
def test_compaction_keeps_pairs_prompt_and_system(
    shape: list[tuple[str, int]], budget: int, keep: int
) -> None:
    messages = _history(shape)
    prompt = messages[1]
    result = ContextCompactor(max_chars=budget, keep_recent=keep).compact(
        messages, pinned=1, anchor=1
    )
    if result is None:
        return
    assert _pairs_intact(result.messages)
    assert result.messages[0].content == "sys"
    assert any(m is prompt for m in result.messages)
    assert "compacted" in result.messages[1].content
    assert result.removed_messages == len(messages) + 1 - len(result.messages)
    assert result.chars_after < result.chars_before


def test_no_compaction_under_budget() -> None:
    assert ContextCompactor(max_chars=10_000).compact(_history([("calls", 3)])) is None
