"""``harness eval --baseline PATH``: run the evals, then gate on the comparison (subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EVALS = """
import pathlib

import pytest


@pytest.mark.eval("greets")
def test_greets(harness_app, scripted_provider):
    scripted_provider.add("hello")
    assert harness_app.run("greet me").text == "hello"
    assert not (pathlib.Path(__file__).parent / "BROKEN").exists(), "the greeting broke"
"""


def _harness_eval(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "harness", "eval", *args, "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A one-eval project and the report of a first run of it."""
    root = tmp_path_factory.mktemp("baseline")
    (root / "evals").mkdir()
    (root / "evals" / "test_greet.py").write_text(EVALS, "utf-8")
    first = root / "first.json"
    done = _harness_eval(root, "--report", str(first))
    assert done.returncode == 0, done.stdout + done.stderr
    return root, json.loads(first.read_text("utf-8"))


def _baseline(root: Path, name: str, report: dict[str, Any]) -> Path:
    path = root / name
    path.write_text(json.dumps(report), "utf-8")
    return path


@pytest.mark.deep
def test_an_unchanged_run_passes_the_baseline(project: tuple[Path, dict[str, Any]]) -> None:
    root, first = project
    baseline = _baseline(root, "same.json", first)
    done = _harness_eval(root, "--baseline", str(baseline))
    assert done.returncode == 0, done.stdout + done.stderr
    tail = done.stdout[done.stdout.index(f"compared with the baseline {baseline}:") :]
    lines = tail.splitlines()
    assert lines[1] == "sources: old scripted, new scripted"
    assert lines[-1] == "no changes between the two reports"


@pytest.mark.deep
def test_a_case_missing_from_the_run_is_not_run_never_a_regression(
    project: tuple[Path, dict[str, Any]],
) -> None:
    root, first = project
    gone = {**first["rows"][0], "scenario": "retired", "nodeid": "evals/test_old.py::test_old"}
    live = [{**row, "source": "live"} for row in first["rows"]]
    baseline = _baseline(root, "retired.json", {**first, "rows": [*live, gone]})
    done = _harness_eval(root, "--baseline", str(baseline))
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "1 eval run(s): 1 pass" in out
    assert "sources: old live+scripted, new scripted" in out
    assert "WARNING: the reports' model answers come from different sources" in out
    assert "NOT RUN in the new report (1 case(s), not compared): retired [scripted]" in out
    assert "  source: live -> scripted" in out
    assert "REGRESSION" not in out


@pytest.mark.deep
def test_a_regression_against_the_baseline_exits_non_zero(
    project: tuple[Path, dict[str, Any]],
) -> None:
    root, first = project
    baseline = _baseline(root, "passing.json", first)
    broken = root / "evals" / "BROKEN"
    broken.write_text("", "utf-8")
    try:
        done = _harness_eval(root, "--baseline", str(baseline))
    finally:
        broken.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert "REGRESSION: greets [scripted]" in out
    assert "  pass rate: 1/1 100% [21–100] -> 0/1 0% [0–79]" in out
    assert "  new fail: AssertionError: the greeting broke" in out


@pytest.mark.deep
def test_a_missing_baseline_fails_before_running(project: tuple[Path, dict[str, Any]]) -> None:
    root, _ = project
    done = _harness_eval(root, "--baseline", str(root / "nope.json"))
    assert done.returncode == 2
    assert "eval report" in done.stderr and "nope.json does not exist" in done.stderr
    assert "eval run(s)" not in done.stdout
    refused = _harness_eval(root, "--baseline", str(root / "nope.json"), "--mutants")
    assert refused.returncode == 2 and "without --mutants" in refused.stderr
