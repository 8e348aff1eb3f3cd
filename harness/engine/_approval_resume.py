"""ApprovalResumeRunner: continue a paused run once a human has decided.

Fail closed: any doubt (unknown id, other session, expired, already decided,
missing, corrupt, moved or re-signed files, a checkpoint that is not the one
written with the record, arguments that no longer hash the same) raises
``ApprovalError`` and executes nothing. The status moves from pending to its
final value under the approval's lock *before* the tool runs, and the decision
is entered in the ledger outside the state dir, so an approval is consumed even
if the tool then fails and can never run twice, not even from a restored copy.
The checkpoint is checked whole (messages, mode, phase, policy, indices) before
that, so a checkpoint the run cannot continue from leaves the approval pending.
"""

from __future__ import annotations

import hmac
import logging
import re
from pathlib import Path

from harness.approval import ApprovalStore, CheckpointStore, DecisionLedger
from harness.approval.held import TALLY_KEY
from harness.approval.middleware import APPROVED_CALL_HASH_KEY
from harness.approval.records import (
    DECIDED_BY_PATTERN,
    ApprovalRecord,
    ApprovalStatus,
    RunCheckpoint,
    tool_call_hash,
    utc_now,
)
from harness.core.errors import ApprovalError
from harness.core.messages import Message, ToolCall
from harness.engine._approval_held import check_held, discard_held, held_observation
from harness.engine._loop import MainLoop
from harness.engine._observations import append_tool_observations
from harness.engine._run_types import Phase, RunMode, RunResult, StopReason, ToolPolicy
from harness.engine._state import RunState
from harness.session import SessionRef

__all__ = ["ApprovalResumeRunner", "normalize_decision"]

logger = logging.getLogger("harness.approval")

_DECISIONS = {"approve": "approve", "approved": "approve", "reject": "reject", "rejected": "reject"}


def normalize_decision(decision: str) -> str:
    value = _DECISIONS.get(decision.strip().lower())
    if value is None:
        raise ApprovalError(f"decision {decision!r} is not understood; use 'approve' or 'reject'")
    return value


class ApprovalResumeRunner:
    """Resumes runs from checkpoints with the loop's own step logic."""

    def __init__(
        self,
        loop: MainLoop,
        approvals: ApprovalStore,
        checkpoints: CheckpointStore,
        ledger: DecisionLedger | None = None,
    ) -> None:
        self.loop = loop
        self.approvals = approvals
        self.checkpoints = checkpoints
        self.ledger = ledger

    def resume(
        self,
        approval_id: str,
        decision: str,
        session: SessionRef,
        reason: str | None = None,
        *,
        decided_by: str = "api",
    ) -> RunResult:
        verdict = normalize_decision(decision)
        if not re.match(DECIDED_BY_PATTERN, decided_by):
            raise ApprovalError(
                f"decided_by {decided_by!r} is not understood; use 'cli', 'api' or "
                "'feishu:<open_id>'"
            )
        record, checkpoint, state = self._claim(approval_id, verdict, session, reason, decided_by)
        attributes = {
            "mode": state.mode.value,
            "max_steps": state.max_steps,
            "resumed": True,
            "approval_id": approval_id,
            "resumed_from_trace_id": checkpoint.trace_id,
        }

        def body() -> RunResult:
            outcome = self._apply(state, record, checkpoint, verdict, reason)
            return outcome if outcome is not None else self.loop.advance(state)

        result = self.loop.traced(state, "agent.run", attributes, body)
        return result.model_copy(update={"resumed_from_approval_id": approval_id})

    # -- claiming -----------------------------------------------------------

    def _claim(
        self,
        approval_id: str,
        verdict: str,
        session: SessionRef,
        reason: str | None,
        decided_by: str,
    ) -> tuple[ApprovalRecord, RunCheckpoint, RunState]:
        record = self.approvals.load(approval_id)
        if record.session_key != session.key:
            raise ApprovalError(
                f"approval {approval_id!r} belongs to another session; it was not executed"
            )
        with self.approvals.locked(record):
            record = self.approvals.load(approval_id)  # re-read under the lock
            if record.status is not ApprovalStatus.PENDING:
                raise ApprovalError(
                    f"approval {approval_id!r} is already {record.status.value}; "
                    "an approval can be decided once"
                )
            if record.is_expired():
                self.approvals.save(record.model_copy(update={"status": ApprovalStatus.EXPIRED}))
                discard_held(record)
                raise ApprovalError(
                    f"approval {approval_id!r} expired at {record.expires_at.isoformat()}; "
                    "nothing was executed, run the task again"
                )
            self._check_workdir(record)
            checkpoint = self.checkpoints.load(record.session_key, record.checkpoint_id)
            self._verify(record, checkpoint)
            state = _state(checkpoint, session)  # before consuming: it may refuse
            if verdict == "approve" and record.held is not None:
                check_held(record, self.loop.workdir)  # a changed file leaves it pending
            if self.ledger is not None:
                self.ledger.claim(approval_id, verdict)
            final = ApprovalStatus.CONSUMED if verdict == "approve" else ApprovalStatus.REJECTED
            self.approvals.save(
                record.model_copy(
                    update={
                        "status": final,
                        "decided_at": utc_now(),
                        "decision": verdict,
                        "decision_reason": reason,
                        "decided_by": decided_by,
                    }
                )
            )
        logger.info("approval %s %s", approval_id, final.value)
        return record, checkpoint, state

    def _check_workdir(self, record: ApprovalRecord) -> None:
        # A state dir shared by two workdirs must not run A's call in B: the
        # human approved an effect on A's files.
        here = Path(self.loop.workdir).resolve()
        if record.workdir is None or Path(record.workdir).resolve() != here:
            asked = record.workdir or "(no workdir recorded)"
            raise ApprovalError(
                f"approval {record.approval_id!r} was requested in workdir {asked}, not in "
                f"{here}; decide it from that workdir (HARNESS_WORKDIR). Nothing was executed"
            )

    @staticmethod
    def _verify(record: ApprovalRecord, checkpoint: RunCheckpoint) -> None:
        if (
            checkpoint.approval_id != record.approval_id
            or checkpoint.session_key != record.session_key
            or checkpoint.checkpoint_id != record.checkpoint_id
        ):
            raise ApprovalError(
                f"checkpoint {checkpoint.checkpoint_id!r} belongs to another approval or "
                "session; nothing was executed"
            )
        if not hmac.compare_digest(checkpoint.signature, record.checkpoint_signature):
            raise ApprovalError(
                f"approval {record.approval_id!r}: the checkpoint is not the one written with "
                "the approval (it was replaced); nothing was executed"
            )
        position = checkpoint.pending_index - checkpoint.first_index
        if not 0 <= position < len(checkpoint.pending_tool_calls):
            raise ApprovalError(
                f"checkpoint {checkpoint.checkpoint_id!r}: its pending call index is out of "
                "range; nothing was executed"
            )
        call = checkpoint.pending_call
        frozen = ToolCall(id=record.tool_call_id, name=record.tool_name, arguments=record.arguments)
        if call.id != record.tool_call_id or tool_call_hash(call) != record.tool_call_hash:
            raise ApprovalError(
                f"approval {record.approval_id!r}: the checkpoint's tool call does not match the "
                "approved call (hash mismatch; the files were changed); nothing was executed"
            )
        if tool_call_hash(frozen) != record.tool_call_hash:
            raise ApprovalError(
                f"approval {record.approval_id!r}: the approval record was changed after it was "
                "created (hash mismatch); nothing was executed"
            )

    # -- continuing ---------------------------------------------------------

    def _apply(
        self,
        state: RunState,
        record: ApprovalRecord,
        checkpoint: RunCheckpoint,
        verdict: str,
        reason: str | None,
    ) -> RunResult | None:
        loop = self.loop
        call = checkpoint.pending_call
        attributes = {"approval_id": record.approval_id, "decision": verdict}
        with loop.tracer.span("approval.resume", attributes=attributes):
            observations: tuple[Message, ...]
            if record.held is not None:
                observations = (held_observation(record, call, verdict, reason, loop.workdir),)
            elif verdict == "approve":
                batch = loop.executor.run_tool_batch(
                    [call],
                    visible_tool_names=checkpoint.visible_tools,
                    workdir=loop.workdir,
                    session=state.session,
                    step=state.step,
                    first_index=checkpoint.pending_index,
                    metadata={
                        APPROVED_CALL_HASH_KEY: record.tool_call_hash,
                        **_run_metadata(checkpoint),
                    },
                )
                observations = batch.observations
            else:
                text = f"Rejected by a human, not executed: {reason or 'no reason given'}"
                observations = (
                    Message.tool(
                        call.id,
                        text,
                        {"tool_name": call.name, "is_error": True, "error_type": "rejected"},
                    ),
                )
            append_tool_observations(state.messages, observations)
            return self._rest_of_batch(state, checkpoint)

    def _rest_of_batch(self, state: RunState, checkpoint: RunCheckpoint) -> RunResult | None:
        """Run the calls the model asked for after the paused one, in the same step."""
        start = checkpoint.pending_index + 1
        rest = checkpoint.pending_tool_calls[start - checkpoint.first_index :]
        if not rest:
            return None
        loop = self.loop
        phase, policy = Phase(checkpoint.phase), _policy(checkpoint.tool_policy)

        def draft(index: int, done: tuple[Message, ...]) -> object:
            return loop.checkpoint_draft(
                state, phase, policy, checkpoint.visible_tools, rest, index, done, start
            )

        batch = loop.executor.run_tool_batch(
            rest,
            visible_tool_names=checkpoint.visible_tools,
            workdir=loop.workdir,
            session=state.session,
            step=state.step,
            draft_factory=draft,
            first_index=start,
            metadata=_run_metadata(checkpoint),
        )
        append_tool_observations(state.messages, batch.observations)
        if batch.suspended is None:
            return None
        return RunResult(
            text=batch.suspended.observation,
            stop_reason=StopReason.APPROVAL_REQUIRED,
            steps=state.step,
            usage=state.usage,
            mode=state.mode,
            session_key=state.session.key,
            tool_calls=state.tool_calls,
            approval_id=batch.suspended.approval_id,
            checkpoint_id=batch.suspended.checkpoint_id,
        )


def _run_metadata(checkpoint: RunCheckpoint) -> dict[str, object]:
    """The run's id and removed-line tally, so the resumed calls count on from the pause."""
    metadata: dict[str, object] = {TALLY_KEY: checkpoint.removed_lines}
    if checkpoint.run_id:
        metadata["run_id"] = checkpoint.run_id
    return metadata


def _state(checkpoint: RunCheckpoint, session: SessionRef) -> RunState:
    """The run state to continue from; ``ApprovalError`` if the checkpoint cannot be one."""
    problem = _checkpoint_problem(checkpoint)
    if problem:
        raise ApprovalError(
            f"checkpoint {checkpoint.checkpoint_id!r} cannot be resumed: {problem}; nothing was "
            "executed and the approval stays pending"
        )
    messages = [*checkpoint.messages, *checkpoint.completed_observations]
    prompt = next(
        (m for m in messages if m.role.value == "user" and m.content == checkpoint.prompt),
        messages[0],
    )
    state = RunState(
        session=session,
        mode=RunMode(checkpoint.mode),
        prompt=checkpoint.prompt,
        max_steps=checkpoint.max_steps,
        messages=messages,
        prompt_message=prompt,
        step=checkpoint.step,
        usage=checkpoint.usage,
        tool_calls=checkpoint.tool_calls_so_far,
        plan=checkpoint.plan,
        plan_required=checkpoint.plan is None,
    )
    if checkpoint.run_id:
        state.run_id = checkpoint.run_id
    return state


def _checkpoint_problem(checkpoint: RunCheckpoint) -> str | None:
    if not checkpoint.messages:
        return "it holds no messages"
    if checkpoint.mode not in {mode.value for mode in RunMode}:
        return f"mode {checkpoint.mode!r} is unknown"
    if checkpoint.phase not in {phase.value for phase in Phase}:
        return f"phase {checkpoint.phase!r} is unknown"
    try:
        _policy(checkpoint.tool_policy)
    except ValueError:  # pydantic's ValidationError too
        return f"tool policy {checkpoint.tool_policy!r} is not understood"
    if not 0 <= checkpoint.step <= checkpoint.max_steps:
        return f"step {checkpoint.step} is outside 0..max_steps ({checkpoint.max_steps})"
    return None


def _policy(label: str) -> ToolPolicy:
    visibility, _, choice = label.partition("/")
    return ToolPolicy.model_validate({"visibility": visibility, "tool_choice": choice})
