"""`harness approvals` / `approve` as real subprocesses: the approver sees what will run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.approval.records import ApprovalRecord, utc_now

RMTREE = "rm -rf build && python3 -c \"import shutil; shutil.rmtree('precious')\""


def _env(tmp_path: Path, script: list[Any]) -> dict[str, str]:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "state"),
        HARNESS_WORKDIR=str(tmp_path / "work"),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(path),
        HARNESS_ENABLED_TOOLS="read,write,bash",
    )
    (tmp_path / "work" / "build").mkdir(parents=True, exist_ok=True)
    # A file to lose: bash runs over an overlay and deleting it is what pauses.
    (tmp_path / "work" / "build" / "keep.txt").write_text("keep\n")
    return env


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    # No terminal on stdin (even under `pytest -s`): `approve` asks nothing then.
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _pause(env: dict[str, str]) -> str:
    done = _harness(env, "run", "--json", "--session", "demo", "clean up")
    data = json.loads(done.stdout)
    assert data["stop_reason"] == "approval_required", done.stdout
    approval_id: str = data["approval_id"]
    return approval_id


@pytest.mark.deep
def test_the_approver_sees_the_whole_command_before_and_while_approving(tmp_path: Path) -> None:
    env = _env(tmp_path, [{"tool": "bash", "arguments": {"command": RMTREE}}, "cleaned"])
    (tmp_path / "work" / "precious").mkdir()
    (tmp_path / "work" / "precious" / "keep.txt").write_text("keep\n")
    approval_id = _pause(env)

    listed = _harness(env, "approvals")
    assert listed.returncode == 0, listed.stderr
    assert RMTREE in listed.stdout and "reasons: " in listed.stdout
    assert "No other calls of the same batch run after it." in listed.stdout

    as_json = json.loads(_harness(env, "approvals", "--json").stdout)
    assert [r["approval_id"] for r in as_json] == [approval_id]
    assert as_json[0]["preview"]["call"]["body"] == RMTREE
    assert as_json[0]["decided_by"] is None

    approved = _harness(env, "approve", approval_id)  # no terminal, no --yes: no question
    assert approved.returncode == 0, approved.stderr
    out = approved.stdout
    assert "as shown above?" not in out
    assert out.startswith(f"Approving:\n{approval_id}")
    assert out.index("shutil.rmtree('precious')") < out.index("cleaned")
    assert not (tmp_path / "work" / "precious").exists()  # what was shown is what ran

    decided = _harness(env, "approvals", "--all")
    assert "consumed" in decided.stdout and "decided: approve by cli at " in decided.stdout
    assert _harness(env, "approvals").stdout.strip() == "no pending approvals"
    records = json.loads(_harness(env, "approvals", "--all", "--json").stdout)
    assert (records[0]["status"], records[0]["decided_by"]) == ("consumed", "cli")


@pytest.mark.deep
def test_reject_records_the_cli_as_decider(tmp_path: Path) -> None:
    env = _env(tmp_path, [{"tool": "bash", "arguments": {"command": "rm -rf build"}}, "ok"])
    approval_id = _pause(env)
    rejected = _harness(env, "reject", approval_id, "not now")
    assert rejected.returncode == 0, rejected.stderr
    assert rejected.stdout.startswith("Rejecting:")
    records = json.loads(_harness(env, "approvals", "--all", "--json").stdout)
    assert (records[0]["status"], records[0]["decided_by"]) == ("rejected", "cli")
    assert records[0]["decision_reason"] == "not now"


@pytest.mark.deep
@pytest.mark.parametrize(
    "command",
    [
        "rm -rf build\r\x1b[2Kecho all good",
        # the reason itself quotes the hidden characters: python -c 'print(1)\r...'
        "python3 -c 'print(1)\r\x1b[2Kecho all good'",
    ],
    ids=["in-the-command", "in-a-quoted-reason"],
)
def test_escape_sequences_reach_the_terminal_escaped(tmp_path: Path, command: str) -> None:
    env = _env(tmp_path, [{"tool": "bash", "arguments": {"command": command}}])
    # With the network on, the command-text policy judges bash (a changeset cannot
    # show what went over the network), and its reasons quote the command.
    env["HARNESS_BASH_NETWORK"] = "on"
    _pause(env)
    listed = _harness(env, "approvals")
    assert "\x1b" not in listed.stdout and "\r" not in listed.stdout
    assert r"\r\x1b[2Kecho all good" in listed.stdout
    # click drops ESC sequences when stdout is not a terminal and text mode turns a
    # CR into a newline, so the stored record is what proves a terminal gets neither.
    (record,) = json.loads(_harness(env, "approvals", "--json").stdout)
    shown = " ".join(record["risk_reasons"])
    assert "\x1b" not in shown and "\r" not in shown, shown
    assert "2 control/invisible character(s) shown escaped" in listed.stdout


@pytest.mark.deep
def test_long_risk_reasons_are_listed_whole(tmp_path: Path) -> None:
    env = _env(tmp_path, [])
    settings = Settings(workdir=tmp_path / "work", state_dir=tmp_path / "state")
    app = build_application(settings)
    reason = "deletes " + " ".join(f"dir{n}" for n in range(60))
    now = utc_now()
    app.approvals.save(
        ApprovalRecord(
            approval_id="appr_long",
            session_key="demo",
            tool_call_id="call_1",
            tool_name="bash",
            arguments={"command": "true"},
            tool_call_hash="0" * 64,
            risk_reasons=(reason,),
            checkpoint_id="ckpt_1",
            created_at=now,
            expires_at=now + timedelta(hours=1),
        )
    )
    app.close()
    listed = _harness(env, "approvals")
    assert f"reasons: {reason}\n" in listed.stdout and len(reason) > 300
    assert "(no preview was recorded for this approval)" in listed.stdout


def _on_a_terminal(
    env: dict[str, str], *args: str, answer: str
) -> subprocess.CompletedProcess[str]:
    """``harness ARGS`` with a real terminal (a pty) on stdin, typing ``answer``."""
    master, terminal = os.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "harness", *args],
            env=env,
            stdin=terminal,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        os.close(terminal)
        os.write(master, answer.encode())  # the terminal holds it until it is read
        out, err = process.communicate(timeout=60)
    finally:
        os.close(master)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _status(tmp_path: Path, approval_id: str) -> str:
    from harness.app import open_approval_store

    store = open_approval_store(Settings(workdir=tmp_path / "work", state_dir=tmp_path / "state"))
    return store.load(approval_id).status.value


def _pause_here(tmp_path: Path) -> tuple[dict[str, str], str]:
    """Pause on RMTREE in this process (the approve subprocess is the point)."""
    from harness.providers import ScriptedProvider, tool_call

    env = _env(tmp_path, [{"tool": "bash", "arguments": {"command": RMTREE}}, "cleaned"])
    (tmp_path / "work" / "precious").mkdir()
    settings = Settings(
        workdir=tmp_path / "work", state_dir=tmp_path / "state", enabled_tools=("bash",)
    )
    paused = build_application(
        settings, provider=ScriptedProvider([tool_call("bash", command=RMTREE)])
    ).run("clean up", session="demo")
    assert paused.approval_id is not None, paused
    return env, paused.approval_id


@pytest.mark.deep
def test_approve_on_a_terminal_asks_after_the_preview_and_no_runs_nothing(
    tmp_path: Path,
) -> None:
    env, approval_id = _pause_here(tmp_path)

    declined = _on_a_terminal(env, "approve", approval_id, answer="n\n")
    assert declined.returncode == 1, declined.stderr
    question = f"Run {approval_id} as shown above? [y/N]"
    assert declined.stdout.index(RMTREE) < declined.stdout.index(question)
    assert f"not approved: {approval_id} is still pending" in declined.stderr
    assert (tmp_path / "work" / "precious").exists()
    assert _status(tmp_path, approval_id) == "pending"

    # --yes: no question even on a terminal (the typed "n" stays unread).
    approved = _on_a_terminal(env, "approve", "-y", approval_id, answer="n\n")
    assert approved.returncode == 0, approved.stderr
    assert question not in approved.stdout and "cleaned" in approved.stdout
    assert not (tmp_path / "work" / "precious").exists()


@pytest.mark.deep
def test_approve_on_a_terminal_runs_when_the_human_says_yes(tmp_path: Path) -> None:
    env, approval_id = _pause_here(tmp_path)
    approved = _on_a_terminal(env, "approve", approval_id, answer="y\n")
    assert approved.returncode == 0, approved.stderr
    assert "as shown above? [y/N]" in approved.stdout and "cleaned" in approved.stdout
    assert not (tmp_path / "work" / "precious").exists()
    assert _status(tmp_path, approval_id) == "consumed"


@pytest.mark.parametrize(
    "provider", [{"HARNESS_PROVIDER": "scripted"}, {"HARNESS_PROVIDER": "openai"}], ids=str
)
def test_listing_approvals_needs_no_provider(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: dict[str, str]
) -> None:
    from typer.testing import CliRunner

    from harness.cli import app
    from harness.providers import ScriptedProvider, tool_call

    work = tmp_path / "work"
    (work / "build").mkdir(parents=True)
    (work / "build" / "out.o").write_text("object\n")  # the effect that pauses: a deletion
    settings = Settings(workdir=work, state_dir=tmp_path / "state", enabled_tools=("bash",))
    paused = build_application(
        settings, provider=ScriptedProvider([tool_call("bash", command="rm -rf build")])
    ).run("clean up", session="demo")
    assert paused.approval_id is not None
    for name in [k for k in os.environ if k.startswith(("HARNESS_", "OPENAI_"))]:
        monkeypatch.delenv(name)
    # A provider that cannot be built: no HARNESS_SCRIPT, no OPENAI_API_KEY.
    for name, value in {
        "HARNESS_WORKDIR": str(work),
        "HARNESS_STATE_DIR": str(tmp_path / "state"),
        **provider,
    }.items():
        monkeypatch.setenv(name, value)
    listed = CliRunner().invoke(app, ["approvals"])
    assert listed.exit_code == 0, listed.output
    assert paused.approval_id in listed.output and "rm -rf build" in listed.output
