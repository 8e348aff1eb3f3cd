"""Reading version 2 approval records: verified as written, then upgraded to version 3.

Version 2 named a held layer by two strings (``held_layer``, the folder, and
``changeset_digest``). Such a record is verified against its own schema and
signature first (so a tamper is refused exactly as before), then turned into
the current ``ApprovalRecord`` with a typed ``HeldLayer``. A record that names
a layer but lacks what the apply needs (a digest, a folder named like a layer)
cannot be upgraded and is refused: nothing is applied from it.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from harness.approval.held_layer import HeldLayer
from harness.approval.preview import ApprovalPreview
from harness.approval.records import DECIDED_BY_PATTERN, ApprovalRecord, ApprovalStatus
from harness.core.errors import ApprovalError

__all__ = ["APPROVAL_V2", "ApprovalRecordV2", "upgrade_v2"]

APPROVAL_V2 = 2


class ApprovalRecordV2(BaseModel):
    """An approval record as version 2 wrote it (only ever read, never written)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = APPROVAL_V2
    approval_id: str
    session_key: str
    session_display_name: str | None = None
    workdir: str | None = None
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    tool_call_hash: str
    risk_reasons: tuple[str, ...]
    checkpoint_id: str
    status: ApprovalStatus = ApprovalStatus.PENDING
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None
    decision: str | None = None
    decision_reason: str | None = None
    decided_by: str | None = Field(default=None, pattern=DECIDED_BY_PATTERN)
    preview: ApprovalPreview | None = None
    held_layer: str | None = None
    changeset_digest: str | None = None
    output: str | None = None
    checkpoint_signature: str = ""
    signature: str = ""


def upgrade_v2(old: ApprovalRecordV2, path: Path) -> ApprovalRecord:
    """The verified version 2 record ``old`` as a version 3 record (unsigned until saved).

    Raises:
        ApprovalError: it names a held layer without a digest, or one whose folder
            is not named like a layer; nothing is applied from such a record.
    """
    fields = old.model_dump(exclude={"schema_version", "held_layer", "changeset_digest"})
    fields["signature"] = ""
    held = None
    if old.held_layer is not None:
        if old.changeset_digest is None:
            raise ApprovalError(
                f"approval file {path} (version 2) names a held layer but no changeset "
                "digest, so its changes cannot be checked; nothing was executed: run the "
                "prompt again for a new approval"
            )
        try:
            held = HeldLayer(
                layer_id=Path(old.held_layer).name,
                root=old.held_layer,
                changeset_digest=old.changeset_digest,
            )
        except ValidationError as exc:
            raise ApprovalError(
                f"approval file {path} (version 2) names an unusable held layer "
                f"({exc.errors()[0]['msg']}); nothing was executed: run the prompt again "
                "for a new approval"
            ) from None
    return ApprovalRecord(**fields, held=held)
