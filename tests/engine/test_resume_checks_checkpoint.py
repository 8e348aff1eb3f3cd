"""Resuming checks the whole checkpoint before the approval is consumed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.approval.records import ApprovalStatus
from harness.core import ApprovalError
from harness.providers import ScriptedProvider, tool_call


def _paused(tmp_path: Path) -> tuple[Any, str]:
    settings = Settings(
        workdir=tmp_path, state_dir=tmp_path / "state", enabled_tools=("read", "bash")
    )
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "keep.txt").write_text("deleting it pauses the call\n")
    provider = ScriptedProvider([tool_call("bash", command="rm -rf build; touch ran"), "done"])
    app = build_application(settings, provider=provider)
    result = app.run("clean up", session="s")
    assert result.stop_reason == "approval_required" and result.approval_id
    return app, result.approval_id


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"messages": ()}, "holds no messages"),
        ({"mode": "dance"}, "mode 'dance' is unknown"),
        ({"phase": "nap"}, "phase 'nap' is unknown"),
        ({"tool_policy": "sideways/maybe"}, "tool policy 'sideways/maybe' is not understood"),
        ({"step": 99}, "step 99 is outside"),
        ({"pending_index": -1}, "pending call index is out of range"),
    ],
    ids=["no-messages", "mode", "phase", "policy", "step", "negative-index"],
)
def test_a_checkpoint_that_cannot_continue_leaves_the_approval_pending(
    tmp_path: Path, change: dict[str, Any], problem: str
) -> None:
    app, approval_id = _paused(tmp_path)
    record = app.approvals.load(approval_id)
    original = app.checkpoints.load("s", record.checkpoint_id)
    # Signed with the real key: the damage a harness bug (not an attacker) could do.
    broken = app.checkpoints.save(original.model_copy(update=change))
    app.approvals.save(record.model_copy(update={"checkpoint_signature": broken.signature}))

    with pytest.raises(ApprovalError, match=problem):
        app.resume_approval(approval_id, "approve", session="s")
    assert app.approvals.load(approval_id).status is ApprovalStatus.PENDING
    assert not (tmp_path / "ran").exists()

    # Repaired, the same approval still runs: it was not consumed by the refusal.
    app.checkpoints.save(original)
    app.approvals.save(record)
    assert app.resume_approval(approval_id, "approve", session="s").stop_reason == "final"
    assert (tmp_path / "ran").exists()
