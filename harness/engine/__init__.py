"""The engine: the ReAct loop that turns a prompt into a run (SPEC section 4).

One concept per module, read top-down as a run goes:

- ``run_types``: ``RunMode``, ``RunResult``, ``StopReason`` and the phase types.
- ``run_policy``: which tools each phase sees and the tool choice per step.
- ``context``: ``ContextBuilder`` and ``ContextCompactor``, the messages sent.
- ``loop``: ``MainLoop``, the loop itself; ``state``: what a run carries.
- ``executor``: ``ToolExecutor``, a batch of tool calls, parallel where safe.
- ``arguments``: checking a call's arguments against the tool's schema.
- ``observations``: tool results as the messages the model reads next.
- ``approval_resume``: ``ApprovalResumeRunner``, resuming a paused run.

Names resolve on first use, so importing ``harness.engine.run_types`` (the CLI
and the package root do) never drags in the loop and its dependencies.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.engine.approval_resume import ApprovalResumeRunner, normalize_decision
    from harness.engine.arguments import check_arguments
    from harness.engine.context import (
        DEFAULT_SYSTEM_PROMPT,
        BuiltContext,
        CompactionResult,
        ContextBuilder,
        ContextCompactor,
    )
    from harness.engine.executor import (
        PARALLEL_SAFE_TOOL_NAMES,
        CheckpointDraftFactory,
        ToolBatchResult,
        ToolExecutor,
    )
    from harness.engine.loop import MainLoop
    from harness.engine.observations import append_tool_observations, observation_message
    from harness.engine.run_policy import (
        READ_ONLY_TOOL_NAMES,
        phase_for_step,
        tool_policy_for_phase,
        visible_tools,
    )
    from harness.engine.run_types import (
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
    from harness.engine.state import RunState

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
    "DEFAULT_SYSTEM_PROMPT": "context",
    "PARALLEL_SAFE_TOOL_NAMES": "executor",
    "READ_ONLY_TOOL_NAMES": "run_policy",
    "STOP_REASON_APPROVAL_REQUIRED": "run_types",
    "STOP_REASON_APPROVAL_RESUME_FAILED": "run_types",
    "STOP_REASON_FINAL": "run_types",
    "STOP_REASON_MAX_STEPS": "run_types",
    "STOP_REASON_PROVIDER_ERROR": "run_types",
    "ApprovalResumeRunner": "approval_resume",
    "BuiltContext": "context",
    "CheckpointDraftFactory": "executor",
    "CompactionResult": "context",
    "ContextBuilder": "context",
    "ContextCompactor": "context",
    "MainLoop": "loop",
    "Phase": "run_types",
    "RunMode": "run_types",
    "RunResult": "run_types",
    "RunState": "state",
    "StopReason": "run_types",
    "ToolBatchResult": "executor",
    "ToolExecutor": "executor",
    "ToolPolicy": "run_types",
    "ToolVisibility": "run_types",
    "append_tool_observations": "observations",
    "check_arguments": "arguments",
    "normalize_decision": "approval_resume",
    "observation_message": "observations",
    "phase_for_step": "run_policy",
    "tool_policy_for_phase": "run_policy",
    "visible_tools": "run_policy",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
