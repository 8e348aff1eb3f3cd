"""Human approval: the risk policy, the pause, signed records and what the approver sees.

One concept per module:

- ``decision``: ``RiskDecision`` and ``RiskVerdict``, the typed answer a risk policy gives.
- ``risk`` and its ``risk_*`` rules: ``DefaultRiskPolicy``, which calls need a human
  (shell commands are read by ``harness.shell``).
- ``middleware``: ``HumanApprovalMiddleware``, which pauses those calls.
- ``records``: ``ApprovalRecord`` and ``RunCheckpoint``, the versioned files
  (``records_v2`` reads version 2 records); ``held_layer``: ``HeldLayer``, the
  paused bash call's changes a record names.
- ``store``: reading and writing them, each valid only at its own path.
- ``signing``: the HMAC over their canonical JSON; ``keyfile``: where the key lives.
- ``ledger``: ``DecisionLedger``, decided ids kept outside the state dir.
- ``preview``: ``ApprovalPreview``, the command, content or diff shown to the approver.
- ``requester``: the ``ApprovalRequester`` seam a channel implements.

Names resolve on first use, so importing one module (the engine imports
``records``) never drags in the rest, and no import cycle can form here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.approval.decision import RiskDecision, RiskLevel, RiskVerdict
    from harness.approval.held_layer import HeldLayer
    from harness.approval.keyfile import default_key_path, load_approval_key
    from harness.approval.ledger import DecisionLedger
    from harness.approval.middleware import HumanApprovalMiddleware
    from harness.approval.preview import ApprovalPreview, CallPreview, render_preview
    from harness.approval.records import (
        ApprovalRecord,
        ApprovalStatus,
        CheckpointDraft,
        RunCheckpoint,
    )
    from harness.approval.requester import ApprovalRequester, RecordingApprovalRequester
    from harness.approval.risk import DefaultRiskPolicy
    from harness.approval.signing import ApprovalSigner
    from harness.approval.store import ApprovalStore, CheckpointStore

__all__ = [
    "ApprovalPreview",
    "ApprovalRecord",
    "ApprovalRequester",
    "ApprovalSigner",
    "ApprovalStatus",
    "ApprovalStore",
    "CallPreview",
    "CheckpointDraft",
    "CheckpointStore",
    "DecisionLedger",
    "DefaultRiskPolicy",
    "HeldLayer",
    "HumanApprovalMiddleware",
    "RecordingApprovalRequester",
    "RiskDecision",
    "RiskLevel",
    "RiskVerdict",
    "RunCheckpoint",
    "default_key_path",
    "load_approval_key",
    "render_preview",
]

_HOME = {
    "ApprovalPreview": "preview",
    "ApprovalRecord": "records",
    "ApprovalRequester": "requester",
    "ApprovalSigner": "signing",
    "ApprovalStatus": "records",
    "ApprovalStore": "store",
    "CallPreview": "preview",
    "CheckpointDraft": "records",
    "CheckpointStore": "store",
    "DecisionLedger": "ledger",
    "DefaultRiskPolicy": "risk",
    "HeldLayer": "held_layer",
    "HumanApprovalMiddleware": "middleware",
    "RecordingApprovalRequester": "requester",
    "RiskDecision": "decision",
    "RiskLevel": "decision",
    "RiskVerdict": "decision",
    "RunCheckpoint": "records",
    "default_key_path": "keyfile",
    "load_approval_key": "keyfile",
    "render_preview": "preview",
}

__getattr__ = lazy_getattr(__name__, _HOME)
