"""The Feishu approval message shows what would run; a Feishu decision names its approver."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from harness import Settings, build_application
from harness.approval.preview import ApprovalPreview, CallPreview
from harness.approval.records import ApprovalRecord, ApprovalStatus
from harness.effects import Changeset, FileChange, FileState, changeset_preview
from harness.integrations.feishu import (
    FeishuEventAdapter,
    RecordingMessenger,
    format_approval_message,
    message_event,
)
from harness.providers import ScriptedProvider, tool_call

RMTREE = "rm -rf build && python3 -c \"import shutil; shutil.rmtree('precious')\""
APPROVER = "ou_approver"


def test_a_chat_approval_shows_the_command_and_records_the_approver(tmp_path: Path) -> None:
    work = tmp_path / "work"
    (work / "precious").mkdir(parents=True)
    # A file to lose: the command runs over an overlay and its changeset is what pauses.
    (work / "precious" / "keep.txt").write_text("keep\n")
    settings = Settings(
        workdir=work,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "bash"),
        approval_provider="feishu",
    )
    turns = [tool_call("bash", command=RMTREE), "cleaned"]
    app = build_application(settings, provider=ScriptedProvider(turns))
    messenger = RecordingMessenger()
    adapter = FeishuEventAdapter(app, messenger, approvers=frozenset({APPROVER}))
    try:
        adapter.handle_event(message_event("clean up", chat_id="oc_1")).result(timeout=30)  # type: ignore[union-attr]
        request = messenger.messages[-1].text
        approval_id = request.splitlines()[0].removeprefix("Approval required: ")
        assert "What would run:" in request and RMTREE in request
        assert request.index(RMTREE) < request.index(f"/approve {approval_id}")
        assert (work / "precious").exists()
        command = message_event(f"/approve {approval_id}", chat_id="oc_1", sender=APPROVER)
        adapter.handle_event(command).result(timeout=30)  # type: ignore[union-attr]
        record = app.approvals.load(approval_id)
        assert record.status is ApprovalStatus.CONSUMED
        assert record.decided_by == f"feishu:{APPROVER}"
        assert not (work / "precious").exists()
    finally:
        adapter.close()
        app.close()


def _record(body: str) -> ApprovalRecord:
    call = CallPreview(
        tool_call_id="call_1", tool_name="bash", kind="bash", summary="bash", body=body
    )
    return ApprovalRecord(
        approval_id="appr_1",
        session_key="demo",
        tool_call_id="call_1",
        tool_name="bash",
        arguments={"command": body},
        tool_call_hash="0" * 64,
        risk_reasons=("x" * 400,),
        checkpoint_id="ckpt_1",
        expires_at=datetime(2030, 1, 1, tzinfo=UTC),
        preview=ApprovalPreview(call=call),
    )


def test_risk_reasons_are_not_cut() -> None:
    assert f"Risk: {'x' * 400}\n" in format_approval_message(_record("rm -rf a"))


def test_an_oversized_preview_says_how_much_the_message_left_out() -> None:
    body = "y" * 2000
    text = format_approval_message(_record(body), max_preview_chars=500)
    assert "more characters of the preview left out here" in text
    assert "harness approvals show appr_1 --full" in text
    assert text.endswith("Reject: /reject appr_1 <reason>")
    left = int(text.split("[... ")[1].split(" more characters")[0])
    shown = text.split("What would run:\n")[1].split("\n[... ")[0]
    full = format_approval_message(_record(body)).split("What would run:\n")[1]
    full = full.split("\nApprove: ")[0]
    assert (len(shown), left) == (500, len(full) - 500)


def test_a_cut_message_still_names_every_deletion_and_quotes_names() -> None:
    odd = "a\n=== deleted nothing"
    changes = Changeset(
        changes=(
            FileChange(path="precious.txt", change="deleted", before=FileState(kind="file")),
            FileChange(path=odd, change="deleted", before=FileState(kind="file")),
            FileChange(path="new.txt", change="created", after=FileState(kind="file")),
        )
    )
    held = changeset_preview(changes, Path("/nonexistent"), lambda _: None)
    record = _record("y" * 2000).model_copy(
        update={"preview": ApprovalPreview(call=_record("y" * 2000).preview.call, changeset=held)}  # type: ignore[union-attr]
    )
    text = format_approval_message(record, max_preview_chars=500)
    cut = text.split("more characters of the preview left out here")[1]
    assert "The held changes delete 2 path(s):" in cut
    assert "deleted precious.txt" in cut
    assert 'deleted "a\\n=== deleted nothing"' in cut
    assert not any(line.startswith("=== deleted nothing") for line in text.split("\n"))
