"""``run_evals(meanwhile=...)`` runs its callback while pytest runs, and an error in
it stops pytest (as Ctrl-C in ``subprocess.run`` would)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harness.evals._runner import run_evals

# An eval that passes only once ``go`` appears beside the project: only a callback
# made while pytest runs can let it pass. It says when it started, and when it gave
# up waiting (after 60 s), which a pytest that was killed never does.
WAITING_EVAL = """
import pathlib, time

import pytest

HERE = pathlib.Path(__file__).resolve().parents[1]


@pytest.mark.eval
def test_waits_for_go():
    (HERE / "started").write_text("")
    for _ in range(600):
        if (HERE / "go").exists():
            (HERE / "finished").write_text("")
            return
        time.sleep(0.1)
    (HERE / "gave-up").write_text("")
    raise AssertionError("nobody said go")
"""


# pytest's own plugins that only slow the inner run down.
QUIET = ["-p", "no:randomly", "-p", "no:hypothesispytest", "-p", "no:anyio"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_waits.py").write_text(WAITING_EVAL, "utf-8")
    return tmp_path


def _wait_for(path: Path) -> None:
    for _ in range(600):
        if path.exists():
            return
        time.sleep(0.1)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.deep  # a pytest subprocess
def test_the_callback_runs_while_pytest_does(project: Path) -> None:
    calls: list[bool] = []

    def meanwhile() -> None:
        _wait_for(project / "started")  # pytest is running the eval now
        calls.append(True)
        (project / "go").write_text("")

    run = run_evals(QUIET, cwd=project, report_path=project / "r.json", meanwhile=meanwhile)
    assert calls == [True]
    assert run.ok and [row.verdict.value for row in run.report.rows] == ["pass"]


def test_an_error_in_the_callback_stops_pytest_and_is_raised(project: Path) -> None:
    def meanwhile() -> None:
        _wait_for(project / "started")
        raise RuntimeError("the import failed")

    with pytest.raises(RuntimeError, match="the import failed"):
        run_evals(QUIET, cwd=project, report_path=project / "r.json", meanwhile=meanwhile)
    # pytest was killed, not waited for: it neither finished nor gave up waiting.
    assert not (project / "finished").exists() and not (project / "gave-up").exists()
    assert not (project / "r.json").exists()
