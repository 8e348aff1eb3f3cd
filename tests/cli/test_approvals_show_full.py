"""`harness approvals show ID [--full]`: a cut preview says how to see all of it, and does.

Real ``harness`` processes: one pauses (``harness run``), the next shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.tools.sandbox import choose_sandbox

LINES = [f"line {n:03d}" for n in range(1, 201)]


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
    (tmp_path / "work").mkdir(exist_ok=True)
    return env


def _harness(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "harness", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _pause(env: dict[str, str]) -> str:
    done = _harness(env, "run", "--json", "--session", "demo", "go")
    data = json.loads(done.stdout)
    assert data["stop_reason"] == "approval_required", done.stdout + done.stderr
    approval_id: str = data["approval_id"]
    return approval_id


@pytest.mark.deep  # three harness processes
def test_a_cut_write_preview_names_the_command_that_shows_all_of_it(tmp_path: Path) -> None:
    content = "\n".join(LINES) + "\n"
    write = {"tool": "write", "arguments": {"path": "secret.txt", "content": content}}
    env = _env(tmp_path, [write, "done"])
    approval_id = _pause(env)
    shown = _harness(env, "approvals", "show", approval_id)
    assert shown.returncode == 0, shown.stderr
    assert f"harness approvals show {approval_id} --full" in shown.stdout
    assert "line 100" not in shown.stdout  # cut from the preview
    full = _harness(env, "approvals", "show", approval_id, "--full")
    assert full.returncode == 0, full.stderr
    for line in LINES:
        assert f"    {line}\n" in full.stdout
    listed = _harness(env, "approvals")  # the list is still there, as before
    assert listed.returncode == 0 and approval_id in listed.stdout


def test_showing_an_unknown_approval_is_one_clear_error(tmp_path: Path) -> None:
    env = _env(tmp_path, ["done"])
    shown = _harness(env, "approvals", "show", "appr_0000000000000000", "--full")
    assert shown.returncode != 0
    assert "unknown approval id" in shown.stderr
    assert "Traceback" not in shown.stderr


@pytest.mark.deep  # 2,100 files made in the sandbox, three harness processes
@pytest.mark.skipif(not choose_sandbox("auto").overlay, reason="bwrap cannot mount an overlay")
def test_the_full_view_shows_every_held_change(tmp_path: Path) -> None:
    env = _env(tmp_path, [])
    work = tmp_path / "work"
    (work / "data.txt").write_text("".join(f"row {n}\n" for n in range(600)))
    # Every row rewritten (a diff of 1,200 lines) and 2,100 new files: both are cut.
    command = (
        "sed -i 's/row/ROW/' data.txt && mkdir many && "
        "for i in $(seq 2100); do echo $i > many/f$i.txt; done"
    )
    (tmp_path / "script.json").write_text(
        json.dumps([{"tool": "bash", "arguments": {"command": command}}, "done"])
    )
    approval_id = _pause(env)
    shown = _harness(env, "approvals", "show", approval_id)
    assert shown.returncode == 0, shown.stderr
    assert "paths not listed" in shown.stdout and "diff lines (" in shown.stdout
    assert f"harness approvals show {approval_id} --full" in shown.stdout
    assert "-row 300\n" not in shown.stdout
    full = _harness(env, "approvals", "show", approval_id, "--full")
    assert full.returncode == 0, full.stderr
    whole = full.stdout.split("The whole approval, nothing cut:")[1]
    assert "    -row 300\n" in whole and "    +ROW 599\n" in whole
    assert all(f"created many/f{i}.txt" in whole for i in range(1, 2101))
    assert "paths not listed" not in whole
