"""The mutable state of one run as the loop advances it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from uuid import uuid4

from harness.core.messages import Message, Usage
from harness.engine._run_types import RunMode
from harness.session import SessionRef

__all__ = ["RunState"]


@dataclass(slots=True)
class RunState:
    """Where a run is: its history, step count and totals.

    A resumed run rebuilds this from a checkpoint and continues with the same
    loop, so everything a step needs lives here.
    """

    session: SessionRef
    mode: RunMode
    prompt: str
    max_steps: int
    messages: list[Message]
    prompt_message: Message
    pinned: int = 1
    step: int = 0
    usage: Usage = field(default_factory=Usage)
    tool_calls: int = 0
    plan: str | None = None
    plan_required: bool = True
    channel: Any = None
    last_text: str = ""
    trace_id: str | None = None
    # One id per run, carried through a pause and resume, so run-wide rules
    # (the large-deletion tally) see one run, not two.
    run_id: str = field(default_factory=lambda: uuid4().hex)

    def prompt_index(self) -> int | None:
        for index, message in enumerate(self.messages):
            if message is self.prompt_message:
                return index
        return None
