"""HumanApprovalMiddleware: pause high-risk tool calls into a checkpoint."""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Protocol

from harness.approval._requester import requester_of
from harness.approval._store import ApprovalStore, CheckpointStore, new_id
from harness.approval.decision import RiskDecision, RiskVerdict
from harness.approval.held import (
    TALLY_KEY,
    HeldChanges,
    defer_effects,
    held_changes,
    settle_now,
)
from harness.approval.preview import (
    ApprovalPreview,
    ToolLookup,
    build_approval_preview,
    escape_line,
)
from harness.approval.records import (
    ApprovalRecord,
    CheckpointDraft,
    RunCheckpoint,
    tool_call_hash,
    utc_now,
)
from harness.effects import EffectPolicy, LayerStore
from harness.tools import ToolExecutionContext, ToolExecutionResult, ToolNext
from harness.tracing import NullTracer, Tracer

__all__ = ["APPROVED_CALL_HASH_KEY", "HumanApprovalMiddleware", "RiskEvaluator"]

logger = logging.getLogger("harness.approval")

# Set in the context metadata by the resume runner for the one call a human
# approved; the middleware lets exactly that call (by hash) through.
APPROVED_CALL_HASH_KEY = "approved_call_hash"


class RiskEvaluator(Protocol):
    """Judges one tool call (``DefaultRiskPolicy`` is the standard one)."""

    def evaluate(self, ctx: ToolExecutionContext) -> RiskDecision: ...


class HumanApprovalMiddleware:
    """Lets low-risk calls through; pauses high-risk ones for a human.

    A paused call is persisted as a signed ``RunCheckpoint`` plus a signed
    ``ApprovalRecord`` holding the preview the approver will see and the
    checkpoint's signature (checkpoint first, so a record never points at
    nothing); the channel's requester is notified, and the result is
    ``suspended``. Without a checkpoint draft, or when the preview cannot be
    built, the call is denied: an approval that cannot be resumed, or decided
    with open eyes, is never made.

    Args:
        tool_lookup: finds the tools of the batch's later calls, to preview them
            too (``ToolRegistry.get``); without it they are shown as arguments.
        effects: judges the changesets of bash calls that ran over an overlay;
            by default the policy's own ``effects`` (one tally for all tools).

    A call the risk policy lets through runs with its changes held
    (``held``): the effect policy then applies them at once or pauses the
    call with the changeset as its preview.
    """

    def __init__(
        self,
        policy: RiskEvaluator,
        approvals: ApprovalStore,
        checkpoints: CheckpointStore,
        *,
        timeout_seconds: int = 3600,
        tracer: Tracer | None = None,
        tool_lookup: ToolLookup | None = None,
        effects: EffectPolicy | None = None,
    ) -> None:
        self.policy = policy
        found = getattr(policy, "effects", None)
        self.effects: EffectPolicy = effects or (
            found if isinstance(found, EffectPolicy) else EffectPolicy()
        )
        self.approvals = approvals
        self.checkpoints = checkpoints
        self.timeout_seconds = timeout_seconds
        self.tracer: Tracer = tracer or NullTracer()
        self.tool_lookup: ToolLookup = tool_lookup or (lambda name: None)

    def __call__(self, ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        restored = ctx.metadata.get(TALLY_KEY)
        if isinstance(restored, int):  # a resumed run: count on from its checkpoint
            run = self._run_key(ctx)
            if run is not None:
                self.effects.tally.restore(run, restored)
        approved = ctx.metadata.get(APPROVED_CALL_HASH_KEY)
        if approved is not None and approved == tool_call_hash(ctx.tool_call):
            return nxt(ctx)
        decision = self.policy.evaluate(ctx)
        if not isinstance(decision, RiskDecision):
            return _invalid_decision(ctx, f"a {type(decision).__name__}, not a RiskDecision")
        match decision.verdict:
            case RiskVerdict.DENY:
                return ToolExecutionResult.denied(
                    f"Error: {ctx.tool_name} refused by the risk policy: "
                    + "; ".join(decision.reasons),
                    "risk_denied",
                )
            case RiskVerdict.ALLOW:
                return self._run_and_settle(ctx, nxt)
            case RiskVerdict.APPROVAL_REQUIRED:
                pass
            case unknown:  # only a decision built without validation gets here
                return _invalid_decision(ctx, f"the unknown verdict {unknown!r}")
        draft = ctx.checkpoint_draft() if ctx.checkpoint_draft is not None else None
        if not isinstance(draft, CheckpointDraft):
            return ToolExecutionResult.denied(
                f"Error: {ctx.tool_name} needs human approval ({'; '.join(decision.reasons)}) "
                "but this run cannot be paused and resumed here, so it was not executed",
                "approval_checkpoint_missing",
            )
        try:
            preview = self._preview(ctx, draft)
        except Exception as exc:  # never ask a human to decide blind
            logger.exception("could not build the approval preview for %s", ctx.tool_name)
            return ToolExecutionResult.denied(
                f"Error: {ctx.tool_name} needs human approval but its preview could not be "
                f"built ({type(exc).__name__}: {exc}), so it was not executed",
                "approval_preview_failed",
            )
        # Reasons quote the command; a raw CR or escape sequence in them could redraw
        # the approver's terminal line, so they are stored escaped like the preview.
        reasons = tuple(escape_line(reason) for reason in decision.reasons)
        return self._pause(ctx, draft, reasons, preview)

    def _run_and_settle(self, ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        """Run the call; changes it left in a layer are applied or paused on (``held``)."""
        judged = getattr(self.policy, "required_tools", None)
        if isinstance(judged, tuple) and ctx.tool_name not in judged:
            return nxt(ctx)  # a tool the user does not gate: its changes land at once
        run = self._run_key(ctx)
        result = nxt(defer_effects(ctx))
        workdir = ctx.tool_input.workdir
        try:
            held = held_changes(result, self.effects, workdir, run)
        except Exception as exc:  # an unreadable layer is never applied blind
            logger.exception("could not read the changes of %s", ctx.tool_name)
            return ToolExecutionResult.error(
                f"{result.observation}\nError: the command's changes could not be read "
                f"({type(exc).__name__}: {exc}), so none were applied",
                "changeset_unreadable",
            )
        if held is None:
            return result
        if not held.decision.pause:
            return settle_now(held, result, workdir)
        draft = ctx.checkpoint_draft() if ctx.checkpoint_draft is not None else None
        if not isinstance(draft, CheckpointDraft):
            held.layer.discard()
            return ToolExecutionResult.denied(
                f"{result.observation}\nError: the command's changes need human approval "
                f"({'; '.join(held.decision.reasons)}) but this run cannot be paused here, "
                "so they were discarded: nothing reached the workdir",
                "approval_checkpoint_missing",
            )
        try:
            preview = self._preview(ctx, draft).model_copy(
                update={"changeset": held.preview(workdir)}
            )
        except Exception as exc:
            held.layer.discard()
            logger.exception("could not build the changeset preview for %s", ctx.tool_name)
            return ToolExecutionResult.denied(
                f"Error: the changes of {ctx.tool_name} need human approval but their preview "
                f"could not be built ({type(exc).__name__}: {exc}); they were discarded",
                "approval_preview_failed",
            )
        reasons = tuple(escape_line(reason) for reason in held.decision.reasons)
        return self._pause(ctx, draft, reasons, preview, held=held, run=run)

    def _run_key(self, ctx: ToolExecutionContext) -> str | None:
        key = getattr(self.policy, "run_key", None)
        if callable(key):
            value = key(ctx)
            return value if isinstance(value, str) else None
        run = ctx.metadata.get("run_id")
        return run if isinstance(run, str) else None

    def _preview(self, ctx: ToolExecutionContext, draft: CheckpointDraft) -> ApprovalPreview:
        later = draft.pending_tool_calls[draft.pending_index - draft.first_index + 1 :]
        return build_approval_preview(
            ctx.tool_call, ctx.tool, ctx.tool_input, later, self.tool_lookup
        )

    def _pause(
        self,
        ctx: ToolExecutionContext,
        draft: CheckpointDraft,
        reasons: tuple[str, ...],
        preview: ApprovalPreview,
        *,
        held: HeldChanges | None = None,
        run: str | None = None,
    ) -> ToolExecutionResult:
        approval_id, checkpoint_id = new_id("appr"), new_id("ckpt")
        if run is None:
            run = self._run_key(ctx)
        tally = self.effects.tally.get(run) if run is not None else 0
        with self.tracer.span("approval.pause", attributes={"approval_id": approval_id}):
            checkpoint = RunCheckpoint(
                **draft.model_dump(),
                checkpoint_id=checkpoint_id,
                approval_id=approval_id,
                removed_lines=tally,
            )
            checkpoint = self.checkpoints.save(checkpoint)
            session = ctx.tool_input.session
            now = utc_now()
            record = ApprovalRecord(
                approval_id=approval_id,
                session_key=draft.session_key,
                session_display_name=session.label if session else None,
                workdir=str(ctx.tool_input.workdir),
                tool_call_id=ctx.tool_call.id,
                tool_name=ctx.tool_name,
                arguments=dict(ctx.arguments),
                tool_call_hash=tool_call_hash(ctx.tool_call),
                risk_reasons=reasons,
                checkpoint_id=checkpoint_id,
                created_at=now,
                expires_at=now + timedelta(seconds=self.timeout_seconds),
                preview=preview,
                held=held.held_layer() if held else None,
                output=held.output if held else None,
                checkpoint_signature=checkpoint.signature,
            )
            record = self.approvals.save(record)
            self._notify(ctx, record)
        self._sweep_layers()
        logger.info(
            "approval %s pending for %s in session %s",
            approval_id,
            ctx.tool_name,
            draft.session_key,
        )
        what = f"the changes of {ctx.tool_name} need" if held else f"{ctx.tool_name} needs"
        return ToolExecutionResult.suspended(
            f"Paused: {what} human approval ({'; '.join(reasons)}). "
            f"Approval id: {approval_id}. Approve with `harness approve {approval_id}` or "
            f"reject with `harness reject {approval_id} REASON`.",
            approval_id=approval_id,
            checkpoint_id=checkpoint_id,
        )

    def _sweep_layers(self) -> None:
        """Remove held layers no pending approval needs (expired, decided, orphaned)."""
        try:
            keep = {
                r.held.layer_id
                for r in self.approvals.list()
                if r.held and r.status.value == "pending" and not r.is_expired()
            }
            LayerStore(self.approvals.state_dir).sweep(keep)
        except Exception:  # cleaning up is never worth failing a pause
            logger.exception("could not sweep held layers")

    def _notify(self, ctx: ToolExecutionContext, record: ApprovalRecord) -> None:
        requester = requester_of(ctx.metadata.get("channel"))
        if requester is None:
            return
        try:
            requester.request_approval(record)
        except Exception:  # the approval stays decidable from the CLI
            logger.exception("could not notify the channel of approval %s", record.approval_id)


def _invalid_decision(ctx: ToolExecutionContext, what: str) -> ToolExecutionResult:
    """Fail closed: a policy answer nobody can read never lets a call run."""
    logger.error("the risk policy returned %s for %s", what, ctx.tool_name)
    return ToolExecutionResult.denied(
        f"Error: {ctx.tool_name} was not executed: the risk policy returned {what} "
        "(allow, deny or approval_required); fix the policy's evaluate()",
        "risk_policy_invalid",
    )
