"""Pause, approve, reject and every fail-closed refusal, on real files."""

from __future__ import annotations

import json
import threading
from datetime import timedelta
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.approval._requester import RecordingApprovalRequester
from harness.approval.records import ApprovalRecord, ApprovalStatus
from harness.core import ApprovalError, Role
from harness.providers import ScriptedProvider, tool_call
from harness.testing.assertions.trace_assertions import load_trace, normalize_trace

DEMO = "approval-demo-key.txt"


def _app(tmp_path: Path, provider: ScriptedProvider, **overrides: object) -> Application:
    values: dict[str, object] = {
        "workdir": tmp_path / "work",
        "state_dir": tmp_path / "state",
        "enabled_tools": ("read", "write", "bash"),
        "approval_provider": "cli",
    }
    values.update(overrides)
    (tmp_path / "work").mkdir(exist_ok=True)
    return build_application(Settings(**values), provider=provider)  # type: ignore[arg-type]


def _paused(tmp_path: Path, *after: object) -> tuple[Application, ScriptedProvider, str]:
    provider = ScriptedProvider([tool_call("write", path=DEMO, content="demo content\n"), *after])
    app = _app(tmp_path, provider)
    result = app.run("create the demo file", session="demo")
    assert result.stop_reason == "approval_required"
    assert result.approval_id and result.checkpoint_id
    return app, provider, result.approval_id


def _record(app: Application, approval_id: str) -> ApprovalRecord:
    return app.approvals.load(approval_id)


def test_pause_persists_and_executes_nothing(tmp_path: Path) -> None:
    app, _, approval_id = _paused(tmp_path)
    assert not (tmp_path / "work" / DEMO).exists()
    record = _record(app, approval_id)
    assert record.status is ApprovalStatus.PENDING
    assert record.tool_name == "write" and record.arguments["path"] == DEMO
    assert any("key" in reason for reason in record.risk_reasons)
    assert app.checkpoints.path_for("demo", record.checkpoint_id).exists()


def test_approve_runs_the_frozen_call_and_continues(tmp_path: Path) -> None:
    app, provider, approval_id = _paused(tmp_path, "created it")
    result = app.resume_approval(approval_id, decision="approve", session="demo")
    assert (result.stop_reason, result.text) == ("final", "created it")
    assert (tmp_path / "work" / DEMO).read_text() == "demo content\n"
    assert _record(app, approval_id).status is ApprovalStatus.CONSUMED
    tool_messages = [m for m in provider.requests[-1].messages if m.role is Role.TOOL]
    assert "Wrote" in tool_messages[-1].content
    provider.assert_complete()


def test_reject_executes_nothing_and_tells_the_model(tmp_path: Path) -> None:
    app, provider, approval_id = _paused(tmp_path, "understood, I did not create it")
    result = app.resume_approval(approval_id, "reject", session="demo", reason="not today")
    assert result.stop_reason == "final"
    assert not (tmp_path / "work" / DEMO).exists()
    last = [m for m in provider.requests[-1].messages if m.role is Role.TOOL][-1]
    assert last.content == "Rejected by a human, not executed: not today"
    assert _record(app, approval_id).status is ApprovalStatus.REJECTED


def _expire(app: Application, approval_id: str) -> None:
    record = _record(app, approval_id)
    app.approvals.save(record.model_copy(update={"expires_at": record.created_at - timedelta(1)}))


def _tamper_checkpoint(app: Application, approval_id: str) -> None:
    record = _record(app, approval_id)
    path = app.checkpoints.path_for("demo", record.checkpoint_id)
    data = json.loads(path.read_text())
    data["pending_tool_calls"][0]["arguments"]["content"] = "evil\n"
    path.write_text(json.dumps(data))


def _corrupt_checkpoint(app: Application, approval_id: str) -> None:
    record = _record(app, approval_id)
    app.checkpoints.path_for("demo", record.checkpoint_id).write_text("{not json")


def _corrupt_record(app: Application, approval_id: str) -> None:
    app.approvals.locate(approval_id).write_text("{broken")


def _delete_checkpoint(app: Application, approval_id: str) -> None:
    record = _record(app, approval_id)
    app.checkpoints.path_for("demo", record.checkpoint_id).unlink()


@pytest.mark.parametrize(
    ("spoil", "session", "approval", "message"),
    [
        (None, "demo", "appr_doesnotexist", "unknown approval id"),
        (None, "someone-else", None, "another session"),
        (_expire, "demo", None, "expired"),
        (_tamper_checkpoint, "demo", None, "invalid signature"),
        (_corrupt_checkpoint, "demo", None, "corrupt"),
        (_delete_checkpoint, "demo", None, "missing"),
        (_corrupt_record, "demo", None, "corrupt"),
        (None, "demo", "../../etc/passwd", "malformed"),
    ],
    ids=[
        "unknown-id",
        "other-session",
        "expired",
        "tampered-arguments",
        "corrupt-checkpoint",
        "missing-checkpoint",
        "corrupt-record",
        "path-in-id",
    ],
)
def test_fail_closed(
    tmp_path: Path, spoil: object, session: str, approval: str | None, message: str
) -> None:
    app, provider, approval_id = _paused(tmp_path, "should never be asked")
    if spoil is not None:
        spoil(app, approval_id)  # type: ignore[operator]
    with pytest.raises(ApprovalError, match=message):
        app.resume_approval(approval or approval_id, "approve", session=session)
    assert not (tmp_path / "work" / DEMO).exists()
    assert provider.remaining == 1  # the model was never asked again


def test_double_approve_is_refused(tmp_path: Path) -> None:
    app, _, approval_id = _paused(tmp_path, "done")
    app.resume_approval(approval_id, "approve", session="demo")
    with pytest.raises(ApprovalError, match="already consumed"):
        app.resume_approval(approval_id, "approve", session="demo")


def test_twenty_concurrent_resumes_execute_once(tmp_path: Path) -> None:
    provider = ScriptedProvider(
        [tool_call("bash", command="echo ran >> counter.txt; rm -f scratch"), "done"]
    )
    app = _app(tmp_path, provider)
    (tmp_path / "work" / "scratch").write_text("an existing file: deleting it pauses\n")
    approval_id = app.run("count", session="demo").approval_id
    assert approval_id
    outcomes: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(20)

    def attempt() -> None:
        start.wait(timeout=10)
        try:
            app.resume_approval(approval_id, "approve", session="demo")
            outcome = "ok"
        except ApprovalError:
            outcome = "refused"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=attempt) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["ok"] + ["refused"] * 19
    assert (tmp_path / "work" / "counter.txt").read_text() == "ran\n"


def test_channel_requester_is_notified(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("write", path=DEMO, content="x")])
    app = _app(tmp_path, provider)
    requester = RecordingApprovalRequester()
    result = app.run("go", session="demo", channel=requester)
    assert [r.approval_id for r in requester.requests] == [result.approval_id]


def test_low_risk_write_runs_without_approval(tmp_path: Path) -> None:
    provider = ScriptedProvider([tool_call("write", path="notes.txt", content="hi"), "ok"])
    result = _app(tmp_path, provider).run("go", session="demo")
    assert result.stop_reason == "final"
    assert (tmp_path / "work" / "notes.txt").read_text() == "hi"


def test_traces_show_pause_and_resume(tmp_path: Path) -> None:
    app, _, approval_id = _paused(tmp_path, "done")
    record = _record(app, approval_id)
    checkpoint = app.checkpoints.load("demo", record.checkpoint_id)
    paused_trace = next((tmp_path / "state" / "sessions" / "demo" / "traces").glob("*.json"))
    assert normalize_trace(load_trace(paused_trace)) == (
        "agent.run\n  agent.step\n    llm.call\n    tool.call write\n      approval.pause"
    )
    result = app.resume_approval(approval_id, "approve", session="demo")
    assert result.trace_path is not None
    resumed = load_trace(result.trace_path)
    assert normalize_trace(resumed) == (
        "agent.run\n  approval.resume\n    tool.call write\n  agent.step\n    llm.call"
    )
    assert resumed.root.attributes["resumed_from_trace_id"] == checkpoint.trace_id
