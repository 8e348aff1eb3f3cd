"""Run modes, phases, stop reasons and the result of a run."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.core.messages import ToolChoice, Usage

__all__ = [
    "STOP_REASON_APPROVAL_REQUIRED",
    "STOP_REASON_APPROVAL_RESUME_FAILED",
    "STOP_REASON_FINAL",
    "STOP_REASON_MAX_STEPS",
    "STOP_REASON_PROVIDER_ERROR",
    "Phase",
    "RunMode",
    "RunResult",
    "StopReason",
    "ToolPolicy",
    "ToolVisibility",
]


class RunMode(StrEnum):
    """How a run uses tools.

    - ``act``: every step may call any enabled tool.
    - ``plan``: read-only tools only; the answer is a plan, nothing is changed.
    - ``think``: no tools at all; one reasoned answer.
    - ``plan-act``: the first step writes a TODO plan without tools, then every
      later step acts on it with all enabled tools. The plan is kept with the
      session so a later plan-act run continues it.
    """

    ACT = "act"
    PLAN = "plan"
    THINK = "think"
    PLAN_ACT = "plan-act"


class Phase(StrEnum):
    ACT = "act"
    PLAN = "plan"
    THINK = "think"


class StopReason(StrEnum):
    FINAL = "final"
    MAX_STEPS = "max_steps"
    PROVIDER_ERROR = "provider_error"
    APPROVAL_REQUIRED = "approval_required"
    APPROVAL_RESUME_FAILED = "approval_resume_failed"


STOP_REASON_FINAL = StopReason.FINAL
STOP_REASON_MAX_STEPS = StopReason.MAX_STEPS
STOP_REASON_PROVIDER_ERROR = StopReason.PROVIDER_ERROR
STOP_REASON_APPROVAL_REQUIRED = StopReason.APPROVAL_REQUIRED
STOP_REASON_APPROVAL_RESUME_FAILED = StopReason.APPROVAL_RESUME_FAILED


class ToolVisibility(StrEnum):
    ALL = "all"
    READ_ONLY = "read_only"
    NONE = "none"


class ToolPolicy(BaseModel):
    """Which tools a step shows the model and how it may use them."""

    model_config = ConfigDict(frozen=True)

    visibility: ToolVisibility
    tool_choice: ToolChoice

    @property
    def label(self) -> str:
        return f"{self.visibility.value}/{self.tool_choice.value}"


class RunResult(BaseModel):
    """What a run produced and why it stopped."""

    model_config = ConfigDict(frozen=True)

    text: str
    stop_reason: StopReason
    steps: int
    usage: Usage = Field(default_factory=Usage)
    mode: RunMode = RunMode.ACT
    session_key: str | None = None
    tool_calls: int = 0
    error: str | None = None
    trace_id: str | None = None
    trace_path: Path | None = None
    approval_id: str | None = None
    checkpoint_id: str | None = None
    resumed_from_approval_id: str | None = None
    """Set on a resumed run; its steps, tool calls and usage include the paused part."""
