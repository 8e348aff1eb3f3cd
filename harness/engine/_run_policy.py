"""Per-step rules: which phase a step is in and which tools it may see."""

from __future__ import annotations

from collections.abc import Sequence

from harness.core.messages import ToolChoice
from harness.engine._run_types import Phase, RunMode, ToolPolicy, ToolVisibility

__all__ = ["READ_ONLY_TOOL_NAMES", "phase_for_step", "tool_policy_for_phase", "visible_tools"]

# Tools that never change the workspace; plan mode may use them to look around.
READ_ONLY_TOOL_NAMES = frozenset({"read", "explore"})


def phase_for_step(*, mode: RunMode, step: int, plan_required: bool = True) -> Phase:
    """The phase of 1-based ``step`` in a run of ``mode``.

    ``plan_required`` is false when a plan-act session already holds a plan,
    so the run goes straight to acting on it.
    """
    if mode is RunMode.THINK:
        return Phase.THINK
    if mode is RunMode.PLAN:
        return Phase.PLAN
    if mode is RunMode.PLAN_ACT and step == 1 and plan_required:
        return Phase.PLAN
    return Phase.ACT


def tool_policy_for_phase(phase: Phase, *, mode: RunMode = RunMode.ACT) -> ToolPolicy:
    """The tool policy of a phase.

    Plan mode looks around with read-only tools; the planning step of plan-act
    and think steps see no tools at all.
    """
    if phase is Phase.ACT:
        return ToolPolicy(visibility=ToolVisibility.ALL, tool_choice=ToolChoice.AUTO)
    if phase is Phase.PLAN and mode is RunMode.PLAN:
        return ToolPolicy(visibility=ToolVisibility.READ_ONLY, tool_choice=ToolChoice.AUTO)
    return ToolPolicy(visibility=ToolVisibility.NONE, tool_choice=ToolChoice.NONE)


def visible_tools(policy: ToolPolicy, enabled: Sequence[str]) -> tuple[str, ...]:
    """The enabled tool names that ``policy`` lets the model see, in order."""
    if policy.visibility is ToolVisibility.NONE:
        return ()
    if policy.visibility is ToolVisibility.READ_ONLY:
        return tuple(name for name in enabled if name in READ_ONLY_TOOL_NAMES)
    return tuple(enabled)
