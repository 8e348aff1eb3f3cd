"""Eval reports for the report and compare page tests: a real one, written by
``harness eval`` replaying the committed suite in a subprocess, and edits of it."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
# Two scenarios keep the subprocess short; --epochs 2 gives pass rates and intervals.
EVAL_ARGS = ("--epochs", "2", "-k", "test_edit_flow or test_subagent_flow", "-p", "no:randomly")


def run_harness_eval(report: Path) -> list[Path]:
    """Run ``harness eval --report REPORT`` from the repo root (the runs' traces are
    kept in ``REPORT``'s folder); return the stamped copy it left under
    ``.harness/reports``, for the caller to remove."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    done = subprocess.run(
        [sys.executable, "-m", "harness", "eval", "--report", str(report), *EVAL_ARGS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    match = re.search(r"^report: (\S+?\.json)", done.stdout, re.MULTILINE)
    assert match is not None, done.stdout
    stamped = Path(match.group(1))
    return [stamped]


def remove(paths: list[Path]) -> None:
    for path in paths:
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink(missing_ok=True)


def edited(report: Path, target: Path, edit: Callable[[dict[str, Any]], bool]) -> Path:
    """A copy of ``report`` where ``edit`` changed each row in place; rows it
    returns False for are dropped."""
    data: dict[str, Any] = json.loads(report.read_text("utf-8"))
    data.pop("cases", None)  # derived: recomputed when the copy is loaded
    data["rows"] = [row for row in data["rows"] if edit(row)]
    target.write_text(json.dumps(data), "utf-8")
    return target


def synthetic_reports(folder: Path, reports: int, cases: int) -> list[Path]:
    """``reports`` report files of ``cases`` cases each, a day apart, on two
    providers and two sources, where every seventh (case, run) fails with a reason
    naming the case; written to ``folder``, oldest first."""
    from harness.evals import EvalReport, EvalRow, Verdict
    from harness.evals.provenance import Source

    paths = []
    for run in range(reports):
        rows = []
        for case in range(cases):
            failing = (case * 3 + run) % 7 == 0
            rows.append(
                EvalRow(
                    scenario=f"case-{case:03d}",
                    nodeid=f"evals/test_cases.py::test_case[case-{case:03d}]",
                    provider="openai" if case % 2 == 0 else "anthropic",
                    model="gpt-4.1-mini" if case % 2 == 0 else "claude-sonnet-4-6",
                    source=Source.SIMULATOR if case % 3 else Source.LIVE,
                    verdict=Verdict.FAIL if failing else Verdict.PASS,
                    message=f"the answer of case-{case:03d} lacks the marker" if failing else "",
                    cost_usd=0.001 if case % 3 == 0 else None,
                )
            )
        created = f"2026-11-{1 + run // 24:02d}T{run % 24:02d}:00:00+00:00"
        path = folder / f"eval-{run:03d}.json"
        EvalReport(created_at=created, rows=tuple(rows)).write(path)
        paths.append(path)
    return paths
