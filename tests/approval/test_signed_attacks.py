"""An agent with write access to the state dir tries to get a call past the gate.

Each attack edits real files the way a model could (raw JSON, recomputed
unkeyed hashes, copies, restored backups, a swapped key) and must end with
NOTHING executed: the spy tool never ran and its side-effect file does not exist.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.approval.keyfile import default_key_path
from harness.approval.records import ApprovalStatus, tool_call_hash
from harness.core import ApprovalError, ToolCall
from harness.providers import ScriptedProvider, tool_call
from harness.tools._protocol import ToolInput

SESSION = "demo"


class Deploy:
    """A real tool with a side effect; every run is counted and leaves a file."""

    name = "deploy"
    description = "Deploy a target."
    parameters: dict[str, Any] = {"type": "object", "properties": {"target": {"type": "string"}}}

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []

    def run(self, tool_input: ToolInput) -> str:
        self.runs.append(dict(tool_input.arguments))
        target = str(tool_input.arguments.get("target"))
        (tool_input.workdir / f"deployed-{target}").write_text("done")
        return f"deployed {target}"


class Case:
    """One application paused on ``deploy target=staging``."""

    def __init__(self, tmp_path: Path, *turns: object, key: str | None = None) -> None:
        self.tmp_path = tmp_path
        self.work = tmp_path / "work"
        self.work.mkdir(exist_ok=True)
        self.spy = Deploy()
        first = turns[0] if turns else tool_call("deploy", target="staging")
        self.app = self.build([first, *turns[1:], "done", "done"], key=key)
        result = self.app.run("deploy it", session=SESSION)
        assert result.stop_reason == "approval_required", result.text
        assert result.approval_id is not None
        self.approval_id = result.approval_id
        self.record = self.app.approvals.load(self.approval_id)

    def build(self, turns: list[object], *, key: str | None = None) -> Application:
        values: dict[str, Any] = {
            "workdir": self.work,
            "state_dir": self.tmp_path / "state",
            "enabled_tools": ("read",),
            "approval_provider": "cli",
            "approval_required_tools": ("bash", "write", "edit", "deploy"),
        }
        if key is not None:
            values["approval_key"] = key
        return build_application(
            Settings(**values), provider=ScriptedProvider(turns), tools=[self.spy]
        )

    @property
    def record_path(self) -> Path:
        return self.app.approvals.path_for(SESSION, self.approval_id)

    @property
    def checkpoint_path(self) -> Path:
        return self.app.checkpoints.path_for(SESSION, self.record.checkpoint_id)

    def edit(self, path: Path, change: Any) -> None:
        data = json.loads(path.read_text("utf-8"))
        change(data)
        path.write_text(json.dumps(data, indent=2), "utf-8")

    def assert_nothing_ran(self) -> None:
        assert self.spy.runs == []
        assert not list(self.work.glob("deployed-*"))


def _approve(case: Case, session: str = SESSION) -> None:
    case.app.resume_approval(case.approval_id, "approve", session=session)


def test_the_honest_path_runs_once(tmp_path: Path) -> None:
    case = Case(tmp_path)
    _approve(case)
    assert case.spy.runs == [{"target": "staging"}]
    record = case.app.approvals.load(case.approval_id)
    assert (record.status, record.decided_by) == (ApprovalStatus.CONSUMED, "api")


def _rewrite_consistently(case: Case) -> None:
    """Change the target, recompute the old unkeyed hash, and edit both files to match."""
    evil = {"target": "production"}
    call = ToolCall(id=case.record.tool_call_id, name="deploy", arguments=evil)

    def record(data: dict[str, Any]) -> None:
        data["arguments"] = evil
        data["tool_call_hash"] = tool_call_hash(call)
        data["preview"]["call"]["body"] = json.dumps(evil, indent=2)

    def checkpoint(data: dict[str, Any]) -> None:
        data["pending_tool_calls"][0]["arguments"] = evil

    case.edit(case.record_path, record)
    case.edit(case.checkpoint_path, checkpoint)


def test_a_consistent_rewrite_of_a_pending_approval_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path)
    _rewrite_consistently(case)
    with pytest.raises(ApprovalError, match="invalid signature"):
        _approve(case)
    case.assert_nothing_ran()


def test_reviving_an_expired_approval_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path)
    # harness itself lets it expire (as time would), then the attacker revives it
    past = case.record.created_at - timedelta(seconds=1)
    case.app.approvals.save(case.record.model_copy(update={"expires_at": past}))
    with pytest.raises(ApprovalError, match="expired"):
        _approve(case)
    assert case.app.approvals.load(case.approval_id).status is ApprovalStatus.EXPIRED

    def revive(data: dict[str, Any]) -> None:
        data["status"] = "pending"
        data["expires_at"] = "2099-01-01T00:00:00Z"

    case.edit(case.record_path, revive)
    with pytest.raises(ApprovalError, match="invalid signature"):
        _approve(case)
    case.assert_nothing_ran()


def test_reviving_a_consumed_approval_by_editing_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path)
    _approve(case)
    assert len(case.spy.runs) == 1
    case.edit(case.record_path, lambda d: d.update(status="pending", decided_at=None))
    with pytest.raises(ApprovalError, match="invalid signature"):
        _approve(case)
    assert len(case.spy.runs) == 1


def test_restoring_a_saved_copy_of_a_pending_approval_is_refused(tmp_path: Path) -> None:
    """A verbatim backup is validly signed; the decision ledger outside the state dir wins."""
    case = Case(tmp_path)
    saved = {p: p.read_bytes() for p in (case.record_path, case.checkpoint_path)}
    _approve(case)
    for path, data in saved.items():
        path.write_bytes(data)
    with pytest.raises(ApprovalError, match="already decided"):
        _approve(case)
    assert case.spy.runs == [{"target": "staging"}]
    ledger = default_key_path().parent / "decided" / case.approval_id
    assert ledger.read_text() == "approve"


def test_a_call_smuggled_into_the_checkpoint_batch_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path)
    smuggled = {"id": "call_evil", "name": "deploy", "arguments": {"target": "production"}}
    case.edit(case.checkpoint_path, lambda d: d["pending_tool_calls"].append(smuggled))
    with pytest.raises(ApprovalError, match="invalid signature"):
        _approve(case)
    case.assert_nothing_ran()


def test_the_approved_index_cannot_be_moved(tmp_path: Path) -> None:
    batch = [tool_call("deploy", target="staging"), tool_call("deploy", target="production")]
    case = Case(tmp_path, batch)
    case.edit(case.checkpoint_path, lambda d: d.update(pending_index=1))
    with pytest.raises(ApprovalError, match="invalid signature"):
        _approve(case)
    case.assert_nothing_ran()


def _move(case: Case, *, delete: bool) -> None:
    for path in (case.record_path, case.checkpoint_path):
        target = Path(str(path).replace(f"/sessions/{SESSION}/", "/sessions/other/"))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
        if delete:
            path.unlink()


@pytest.mark.parametrize("delete", [True, False], ids=["moved", "copied"])
def test_a_record_moved_to_another_session_is_refused_there(tmp_path: Path, delete: bool) -> None:
    case = Case(tmp_path)
    _move(case, delete=delete)
    # moved: the copy is void; copied: the real record is found, and it is not "other"'s
    with pytest.raises(ApprovalError, match=r"not at its own path|belongs to another session"):
        _approve(case, session="other")
    case.assert_nothing_ran()
    assert case.app.approvals.list("other") == []


def test_a_planted_copy_does_not_block_the_real_approval(tmp_path: Path) -> None:
    case = Case(tmp_path)
    _move(case, delete=False)
    _approve(case)
    assert case.spy.runs == [{"target": "staging"}]


def test_a_checkpoint_swapped_for_another_signed_one_is_refused(tmp_path: Path) -> None:
    """Two pauses in one session: checkpoint B's file put in place of A's."""
    first = Case(tmp_path)
    second = Case(tmp_path, tool_call("deploy", target="production"))
    other = json.loads(second.checkpoint_path.read_text())
    first.checkpoint_path.write_text(json.dumps(other, indent=2))
    with pytest.raises(ApprovalError, match="not at its own path"):
        _approve(first)
    first.assert_nothing_ran()


def test_a_replaced_key_file_voids_pending_approvals(tmp_path: Path) -> None:
    case = Case(tmp_path)
    key_file = default_key_path()
    assert key_file.exists()
    key_file.unlink()
    fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.write(fd, secrets.token_hex(32).encode())
    os.close(fd)
    fresh = case.build(["done"])  # a new process reads the key file anew
    with pytest.raises(ApprovalError, match="invalid signature"):
        fresh.resume_approval(case.approval_id, "approve", session=SESSION)
    case.assert_nothing_ran()


def test_a_record_signed_with_another_key_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path, key="A" * 32)
    other = case.build(["done"], key="B" * 32)
    with pytest.raises(ApprovalError, match="invalid signature"):
        other.resume_approval(case.approval_id, "approve", session=SESSION)
    case.assert_nothing_ran()
    case.app.resume_approval(case.approval_id, "approve", session=SESSION)
    assert len(case.spy.runs) == 1


def test_an_unknown_decider_is_refused(tmp_path: Path) -> None:
    case = Case(tmp_path)
    with pytest.raises(ApprovalError, match="decided_by 'the model'"):
        case.app.resume_approval(case.approval_id, "approve", SESSION, decided_by="the model")
    case.assert_nothing_ran()
    assert case.app.approvals.load(case.approval_id).status is ApprovalStatus.PENDING


def test_an_old_unsigned_record_is_refused_with_the_way_out(tmp_path: Path) -> None:
    case = Case(tmp_path)
    case.edit(case.record_path, lambda d: (d.update(schema_version=1), d.pop("signature")))
    with pytest.raises(ApprovalError) as caught:
        _approve(case)
    message = str(caught.value)
    assert "older harness without a signature" in message
    assert "run the prompt again" in message
    case.assert_nothing_ran()


@pytest.mark.deep
def test_the_real_cli_refuses_a_consistent_rewrite(tmp_path: Path) -> None:
    """A write-tool pause, rewritten consistently, then `harness approve ID` as a subprocess."""
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool": "write",
                    "arguments": {"path": "approval-demo-key.txt", "content": "fine\n"},
                },
                "done",
            ]
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path / "work"),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_ENABLED_TOOLS="read,write",
    )
    (tmp_path / "work").mkdir()

    def harness(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harness", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    paused = json.loads(harness("run", "--json", "--session", SESSION, "go").stdout)
    approval_id = paused["approval_id"]
    state = tmp_path / "state" / "sessions" / SESSION
    record_path = state / "approvals" / f"{approval_id}.json"
    record = json.loads(record_path.read_text())
    evil = {"path": "approval-demo-key.txt", "content": "rm -rf ~\n"}
    record["arguments"] = evil
    record["tool_call_hash"] = tool_call_hash(
        ToolCall(id=record["tool_call_id"], name="write", arguments=evil)
    )
    record_path.write_text(json.dumps(record, indent=2))
    checkpoint_path = state / "checkpoints" / f"{record['checkpoint_id']}.json"
    checkpoint = json.loads(checkpoint_path.read_text())
    checkpoint["pending_tool_calls"][0]["arguments"] = evil
    checkpoint_path.write_text(json.dumps(checkpoint, indent=2))

    done = harness("approve", "--yes", approval_id)
    assert done.returncode == 1
    assert "invalid signature" in done.stderr and "nothing was executed" in done.stderr
    assert not (tmp_path / "work" / "approval-demo-key.txt").exists()
    listed = harness("approvals")
    assert approval_id not in listed.stdout
    assert f"ignored {record_path}" in listed.stderr
