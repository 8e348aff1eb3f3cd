"""Deciding a held changeset: approve applies the layer, reject discards it.

The record (signed) names the layer folder and the digest of the changeset the
approver saw. Approving first re-reads the layer's ``changeset.json`` and
checks its digest against the record, then checks every touched path of the
real workdir still holds what it held when the call ran, and every new content
in the layer still hashes as recorded; only then is anything applied (all of
it, or nothing). A path changed meanwhile is refused before the approval is
consumed, so it stays pending; the human can reject it or restore the file.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from harness.approval.records import ApprovalRecord
from harness.core.errors import ApprovalError, ToolError
from harness.core.messages import Message, ToolCall
from harness.effects import Changeset, Layer, apply_changeset, stale_paths, summarize

__all__ = ["check_held", "discard_held", "held_observation"]


def _layer(record: ApprovalRecord) -> Layer:
    # HeldLayer validated the id and that the folder is named by it when the record was read.
    if record.held is None:
        raise ApprovalError(f"approval {record.approval_id!r} holds no changes to apply")
    return Layer(record.held.layer_id, Path(record.held.root))


def _changeset(record: ApprovalRecord) -> tuple[Layer, Changeset]:
    layer = _layer(record)
    if not layer.root.is_dir():
        raise ApprovalError(
            f"approval {record.approval_id!r}: its held changes are gone ({layer.root}); "
            "nothing was applied"
        )
    try:
        changeset = layer.load_changeset()
    except ToolError as exc:
        raise ApprovalError(f"approval {record.approval_id!r}: {exc}") from exc
    if record.held is None or not record.held.holds(changeset.digest):
        raise ApprovalError(
            f"approval {record.approval_id!r}: the held changes are not the ones the approver "
            "was shown (digest mismatch; the layer was altered); nothing was applied"
        )
    return layer, changeset


def check_held(record: ApprovalRecord, workdir: Path) -> None:
    """Refuse (``ApprovalError``, nothing applied, still pending) if the apply would."""
    layer, changeset = _changeset(record)
    stale = stale_paths(changeset, workdir.resolve(), layer.upper)
    if stale:
        raise ApprovalError(
            f"approval {record.approval_id!r} was not applied: these paths changed since the "
            f"command ran: {', '.join(stale[:10])}. Nothing was applied and the approval stays "
            "pending: restore them, or reject it and run the command again"
        )


def discard_held(record: ApprovalRecord) -> None:
    if record.held is not None:
        with contextlib.suppress(ApprovalError):
            _layer(record).discard()


def held_observation(
    record: ApprovalRecord, call: ToolCall, verdict: str, reason: str | None, workdir: Path
) -> Message:
    """Apply or discard the held layer; the observation the model reads either way."""
    meta: dict[str, object] = {"tool_name": call.name}
    if verdict != "approve":
        discard_held(record)
        text = (
            f"Rejected by a human: {reason or 'no reason given'}. The command ran in the "
            "sandbox, but none of its changes were applied to the workdir."
        )
        return Message.tool(call.id, text, {**meta, "is_error": True, "error_type": "rejected"})
    try:
        layer, changeset = _changeset(record)
        apply_changeset(changeset, workdir, layer.upper)
    except (ApprovalError, ToolError) as exc:
        error_type = getattr(exc, "error_type", "apply_failed")
        text = f"{record.output or ''}\nError: approved, but the changes were not applied: {exc}"
        return Message.tool(call.id, text, {**meta, "is_error": True, "error_type": error_type})
    layer.discard()
    text = f"{record.output or ''}\n{summarize(changeset)} (approved by a human)"
    return Message.tool(call.id, text, meta)
