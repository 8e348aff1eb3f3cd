"""The engine: the ReAct loop that turns a prompt into a run (SPEC section 4).

One concept per module, read top-down as a run goes:

- ``_run_types``: ``RunMode``, ``RunResult``, ``StopReason`` and the phase types.
- ``_run_policy``: which tools each phase sees and the tool choice per step.
- ``_context``: ``ContextBuilder`` and ``ContextCompactor``, the messages sent.
- ``_loop``: ``MainLoop``, the loop itself; ``_state``: what a run carries.
- ``_executor``: ``ToolExecutor``, a batch of tool calls, parallel where safe.
- ``_arguments``: checking a call's arguments against the tool's schema.
- ``_observations``: tool results as the messages the model reads next.
- ``_approval_resume``: ``ApprovalResumeRunner``, resuming a paused run.

Names resolve on first use, so importing ``harness.engine._run_types`` (the CLI
and the package root do) never drags in the loop and its dependencies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.engine._approval_resume import ApprovalResumeRunner, normalize_decision
    from harness.engine._arguments import check_arguments
    from harness.engine._context import (
        DEFAULT_SYSTEM_PROMPT,
        BuiltContext,
        CompactionResult,
        ContextBuilder,
        ContextCompactor,
    )
    from harness.engine._executor import (
        PARALLEL_SAFE_TOOL_NAMES,
        CheckpointDraftFactory,
        ToolBatchResult,
        ToolExecutor,
    )
    from harness.engine._loop import MainLoop
    from harness.engine._observations import append_tool_observations, observation_message
    from harness.engine._run_policy import (
        READ_ONLY_TOOL_NAMES,
        phase_for_step,
        tool_policy_for_phase,
        visible_tools,
    )
    from harness.engine._run_types import (
        STOP_REASON_APPROVAL_REQUIRED,
        STOP_REASON_APPROVAL_RESUME_FAILED,
        STOP_REASON_FINAL,
        STOP_REASON_MAX_STEPS,
        STOP_REASON_PROVIDER_ERROR,
        Phase,
        RunMode,
        RunResult,
        StopReason,
        ToolPolicy,
        ToolVisibility,
    )
    from harness.engine._state import RunState

__all__ = [
    "DEFAULT_SYSTEM_PROMPT",
    "PARALLEL_SAFE_TOOL_NAMES",
    "READ_ONLY_TOOL_NAMES",
    "STOP_REASON_APPROVAL_REQUIRED",
    "STOP_REASON_APPROVAL_RESUME_FAILED",
    "STOP_REASON_FINAL",
    "STOP_REASON_MAX_STEPS",
    "STOP_REASON_PROVIDER_ERROR",
    "ApprovalResumeRunner",
    "BuiltContext",
    "CheckpointDraftFactory",
    "CompactionResult",
    "ContextBuilder",
    "ContextCompactor",
    "MainLoop",
    "Phase",
    "RunMode",
    "RunResult",
    "RunState",
    "StopReason",
    "ToolBatchResult",
    "ToolExecutor",
    "ToolPolicy",
    "ToolVisibility",
    "append_tool_observations",
    "check_arguments",
    "normalize_decision",
    "observation_message",
    "phase_for_step",
    "tool_policy_for_phase",
    "visible_tools",
]

_HOME = {
    "DEFAULT_SYSTEM_PROMPT": "_context",
    "PARALLEL_SAFE_TOOL_NAMES": "_executor",
    "READ_ONLY_TOOL_NAMES": "_run_policy",
    "STOP_REASON_APPROVAL_REQUIRED": "_run_types",
    "STOP_REASON_APPROVAL_RESUME_FAILED": "_run_types",
    "STOP_REASON_FINAL": "_run_types",
    "STOP_REASON_MAX_STEPS": "_run_types",
    "STOP_REASON_PROVIDER_ERROR": "_run_types",
    "ApprovalResumeRunner": "_approval_resume",
    "BuiltContext": "_context",
    "CheckpointDraftFactory": "_executor",
    "CompactionResult": "_context",
    "ContextBuilder": "_context",
    "ContextCompactor": "_context",
    "MainLoop": "_loop",
    "Phase": "_run_types",
    "RunMode": "_run_types",
    "RunResult": "_run_types",
    "RunState": "_state",
    "StopReason": "_run_types",
    "ToolBatchResult": "_executor",
    "ToolExecutor": "_executor",
    "ToolPolicy": "_run_types",
    "ToolVisibility": "_run_types",
    "append_tool_observations": "_observations",
    "check_arguments": "_arguments",
    "normalize_decision": "_approval_resume",
    "observation_message": "_observations",
    "phase_for_step": "_run_policy",
    "tool_policy_for_phase": "_run_policy",
    "visible_tools": "_run_policy",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
