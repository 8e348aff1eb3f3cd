"""Human approval: the risk policy, the pause, signed records and what the approver sees.

One concept per module:

- ``decision``: ``RiskDecision`` and ``RiskVerdict``, the typed answer a risk policy gives.
- ``_risk`` and its ``_risk_*`` rules: ``DefaultRiskPolicy``, which calls need a human
  (shell commands are read by ``harness.shell``).
- ``middleware``: ``HumanApprovalMiddleware``, which pauses those calls.
- ``records``: ``ApprovalRecord`` and ``RunCheckpoint``, the versioned files
  (``_records_v2`` reads version 2 records); ``held_layer``: ``HeldLayer``, the
  paused bash call's changes a record names.
- ``_store``: reading and writing them, each valid only at its own path.
- ``_signing``: the HMAC over their canonical JSON; ``keyfile``: where the key lives.
- ``_ledger``: ``DecisionLedger``, decided ids kept outside the state dir.
- ``preview``: ``ApprovalPreview``, the command, content or diff shown to the approver.
- ``_requester``: the ``ApprovalRequester`` seam a channel implements.

Names resolve on first use, so importing one module (the engine imports
``records``) never drags in the rest, and no import cycle can form here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.approval._ledger import DecisionLedger
    from harness.approval._requester import ApprovalRequester, RecordingApprovalRequester
    from harness.approval._risk import DefaultRiskPolicy
    from harness.approval._signing import ApprovalSigner
    from harness.approval._store import ApprovalStore, CheckpointStore
    from harness.approval.decision import RiskDecision, RiskLevel, RiskVerdict
    from harness.approval.held_layer import HeldLayer
    from harness.approval.keyfile import default_key_path, load_approval_key
    from harness.approval.middleware import HumanApprovalMiddleware
    from harness.approval.preview import ApprovalPreview, CallPreview, render_preview
    from harness.approval.records import (
        ApprovalRecord,
        ApprovalStatus,
        CheckpointDraft,
        RunCheckpoint,
    )

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
    "ApprovalRequester": "_requester",
    "ApprovalSigner": "_signing",
    "ApprovalStatus": "records",
    "ApprovalStore": "_store",
    "CallPreview": "preview",
    "CheckpointDraft": "records",
    "CheckpointStore": "_store",
    "DecisionLedger": "_ledger",
    "DefaultRiskPolicy": "_risk",
    "HeldLayer": "held_layer",
    "HumanApprovalMiddleware": "middleware",
    "RecordingApprovalRequester": "_requester",
    "RiskDecision": "decision",
    "RiskLevel": "decision",
    "RiskVerdict": "decision",
    "RunCheckpoint": "records",
    "default_key_path": "keyfile",
    "load_approval_key": "keyfile",
    "render_preview": "preview",
}

__getattr__ = lazy_getattr(__name__, _HOME)
