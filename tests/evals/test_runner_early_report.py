"""``run_evals`` reads the report, keeps its traces and writes the final report as
soon as pytest has written it, while pytest is still shutting down; pytest's exit
code still decides the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.evals import load_report
from harness.evals._runner import run_evals

EVALS = """
import pytest


@pytest.mark.eval
def test_passes():
    pass


@pytest.mark.eval
def test_fails():
    raise AssertionError("this eval fails")
"""

# pytest's shutdown waits (up to 60 s) for the final report to appear: it appears
# only if the runner reads pytest's report before pytest has exited.
CONFTEST = """
import pathlib
import time

HERE = pathlib.Path(__file__).resolve().parents[1]


def pytest_unconfigure(config):
    if hasattr(config, "workerinput"):
        return
    for _ in range(600):
        if (HERE / "final.json").exists():
            (HERE / "seen-before-exit").write_text("")
            return
        time.sleep(0.1)
"""

QUIET = ["-p", "no:randomly", "-p", "no:hypothesispytest", "-p", "no:anyio"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "test_two.py").write_text(EVALS, "utf-8")
    (tmp_path / "evals" / "conftest.py").write_text(CONFTEST, "utf-8")
    return tmp_path


@pytest.mark.deep  # a pytest subprocess
def test_the_report_is_final_before_pytest_has_exited(project: Path) -> None:
    final = project / "final.json"
    run = run_evals(QUIET, report_path=final, cwd=project)
    assert (project / "seen-before-exit").exists()
    assert run.exit_code == 1 and not run.ok  # pytest's verdict, as before
    assert run.paths == (final,)
    verdicts = {row.scenario: row.verdict.value for row in run.report.rows}
    assert verdicts == {"test_passes": "pass", "test_fails": "fail"}


# pytest's shutdown takes its time, and says when it got to its end.
SLOW_END = """
import pathlib
import time

HERE = pathlib.Path(__file__).resolve().parents[1]


def pytest_unconfigure(config):
    time.sleep(1.0)
    (HERE / "ended").write_text("")
"""


@pytest.mark.deep
def test_an_error_writing_the_report_lets_pytest_end_first(project: Path) -> None:
    (project / "evals" / "conftest.py").write_text(SLOW_END, "utf-8")
    (project / "not-a-folder").write_text("", "utf-8")
    with pytest.raises(OSError):
        run_evals(QUIET, report_path=project / "not-a-folder" / "final.json", cwd=project)
    assert (project / "ended").exists()  # not killed in the middle of its shutdown


# Something in the run writes a report of its own where pytest's will go, early:
# one passing row. The plugin's report replaces it at the session's end.
FORGER = """
import json
import pathlib


def pytest_collection_finish(session):
    path = pathlib.Path(session.config.getoption("harness_report"))
    row = {"nodeid": "evals/test_two.py::test_fails", "scenario": "test_fails",
           "verdict": "pass"}
    path.write_text(json.dumps({"schema_version": 3, "rows": [row]}))
"""


def test_a_report_written_early_by_anything_else_is_not_the_one_kept(project: Path) -> None:
    _assert_the_plugins_report_is_kept(project, FORGER)


def _assert_the_plugins_report_is_kept(project: Path, conftest: str) -> None:
    """With ``conftest`` in the run, the runner returns and keeps the plugin's report."""
    (project / "evals" / "conftest.py").write_text(conftest, "utf-8")
    final = project / "final.json"
    run = run_evals(QUIET, report_path=final, cwd=project)
    verdicts = {row.scenario: row.verdict.value for row in run.report.rows}
    assert verdicts == {"test_passes": "pass", "test_fails": "fail"}
    assert run.exit_code == 1 and not run.ok
    kept = {row.scenario: row.verdict.value for row in load_report(final).rows}
    assert kept == verdicts


# Something writes where pytest's report will go, and what it leaves there is no
# report (yet): a file half written, as the runner may find one while it polls.
HALF_WRITTEN = """
import pathlib
import time


def pytest_collection_finish(session):
    pathlib.Path(session.config.getoption("harness_report")).write_text('{"schema_ver')


def pytest_runtest_setup(item):
    if item.name == "test_passes":
        time.sleep(0.3)  # the runner finds the file while the tests still run
"""


@pytest.mark.deep  # a pytest subprocess
def test_a_half_written_file_found_early_is_read_again_once_pytest_is_gone(
    project: Path,
) -> None:
    _assert_the_plugins_report_is_kept(project, HALF_WRITTEN)
