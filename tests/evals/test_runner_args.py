"""What ``harness eval`` adds to the pytest command line: worksteal for parallel runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.evals import run_evals
from harness.evals.runner import _default_dist


@pytest.mark.parametrize(
    ("args", "added"),
    [
        (["-n", "auto"], ["--dist", "worksteal"]),
        (["-n2"], ["--dist", "worksteal"]),
        (["--numprocesses=4", "-k", "x"], ["--dist", "worksteal"]),
        (["-n", "auto", "--dist", "load"], []),
        (["--dist=loadgroup", "-n", "2"], []),
        (["-n", "2", "-d", "loadfile"], []),
        (["-n", "0"], []),
        (["-n0"], []),
        (["-k", "edit", "-x"], []),
        ([], []),
    ],
)
def test_a_parallel_run_steals_work_unless_a_mode_is_named(
    args: list[str], added: list[str]
) -> None:
    assert _default_dist(args) == added


EVAL = """
import pytest


@pytest.mark.eval
@pytest.mark.parametrize("n", range(4))
def test_row(n):
    pass
"""


def test_harness_eval_runs_the_workers_with_work_stealing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_rows.py").write_text(EVAL, "utf-8")
    run = run_evals(
        ["-n", "2", "-v", "-p", "no:randomly"], cwd=tmp_path, report_path=tmp_path / "r.json"
    )
    out = capfd.readouterr().out
    assert run.ok and len(run.report.rows) == 4
    assert "WorkStealingScheduling" in out, out
