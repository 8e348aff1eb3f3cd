"""An approval is bound to the workdir it was requested in, across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.core.errors import ApprovalError
from harness.providers import ScriptedProvider, tool_call

# A write to a file the risk policy calls sensitive: it pauses for a human.
PAUSING_WRITE = {"tool": "write", "arguments": {"path": ".env", "content": "MODE=prod\n"}}


def _env(tmp_path: Path, workdir: Path) -> dict[str, str]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps([PAUSING_WRITE, "written"]))
    workdir.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(
        HARNESS_STATE_DIR=str(tmp_path / "shared-state"),  # one state dir, two workdirs
        HARNESS_WORKDIR=str(workdir),
        HARNESS_PROVIDER="scripted",
        HARNESS_SCRIPT=str(script),
        HARNESS_ENABLED_TOOLS="read,write",
    )
    return env


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.deep
def test_approve_from_another_workdir_refuses_and_runs_nothing(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    env_a, env_b = _env(tmp_path, a), _env(tmp_path, b)
    paused = json.loads(_harness(env_a, "run", "--json", "--session", "s", "set up").stdout)
    approval_id = paused["approval_id"]

    listed = _harness(env_b, "approvals")
    assert f"workdir: {a.resolve()}" in listed.stdout  # the approver sees where it would run

    refused = _harness(env_b, "approve", approval_id)
    assert refused.returncode != 0
    assert f"requested in workdir {a.resolve()}" in refused.stderr
    assert "Nothing was executed" in refused.stderr
    assert not (b / ".env").exists() and not (a / ".env").exists()

    # Still pending: the right workdir can decide it.
    approved = _harness(env_a, "approve", approval_id)
    assert approved.returncode == 0, approved.stderr
    assert (a / ".env").read_text() == "MODE=prod\n"
    assert not (b / ".env").exists()


def test_the_api_refuses_another_workdir_too(tmp_path: Path) -> None:
    state = tmp_path / "state"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    turns = [tool_call("write", path=".env", content="x"), "done"]

    def app_in(name: str) -> Application:
        settings = Settings(
            workdir=tmp_path / name, state_dir=state, enabled_tools=("read", "write")
        )
        return build_application(settings, provider=ScriptedProvider(list(turns)))

    first = app_in("a")
    result = first.run("go", session="s")
    assert result.approval_id
    with pytest.raises(ApprovalError, match="requested in workdir"):
        app_in("b").resume_approval(result.approval_id, decision="approve", session="s")
    assert not (tmp_path / "b" / ".env").exists()
