"""Report and replay papercuts a newcomer hit, each as the run that showed it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.evals import EvalReport, compare_reports, load_report, render_table

EVAL = """
import pytest


@pytest.mark.eval("x")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_x(harness_app):
    assert harness_app.run({prompt!r}).text == "hello"
"""

EARLY = """
import pytest


@pytest.mark.eval("early")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_early(harness_app):
    raise AssertionError("the eval stops before any model call")
"""

SCRIPT: dict[str, Any] = {"version": 1, "rules": [{"when": {}, "reply": "hello"}]}


def test_a_missing_cassette_reads_as_short_as_a_replay_miss(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x=EVAL.format(prompt="hi"))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "does not exist, and record mode 'none' only replays" in out
    assert "in the test: test_x.py:" in out
    assert "site-packages" not in out and "Traceback" not in out
    section = out[out.index(" ERRORS ") : out.index(" short test summary info ")]
    assert len(section.splitlines()) <= 6, section  # rule, title, error, blank, where, rule


@pytest.mark.deep
def test_the_re_record_hint_names_the_port_the_cassette_was_recorded_against(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    server = sim_server(SCRIPT)
    port = server.url.rpartition(":")[2]
    assert port != "8765"
    pytester.makepyfile(test_x=EVAL.format(prompt="hi"))
    record = ("--record-mode", "once", "--harness-base-url", server.url)
    pytester.runpytest("-p", "no:randomly", *record).assert_outcomes(passed=1)
    pytester.makepyfile(test_x=EVAL.format(prompt="something else"))
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"--harness-base-url=http://127.0.0.1:{port}" in out
    assert f"--port {port}`" in out and "8765" not in out


@pytest.mark.deep
def test_a_row_that_used_no_tokens_shows_no_cost(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_early=EARLY)
    report_path = pytester.path / "report.json"
    pytester.runpytest("-p", "no:randomly", "--harness-report", str(report_path))
    report = load_report(report_path)
    (row,) = report.rows
    assert (row.provider, row.tokens, row.cost_usd) == ("openai", 0, None)
    assert "$0.0000" not in render_table(report)
    text = compare_reports(report, report).render()
    assert "$0.0000" not in text and "– → –" in text
    assert "cost: –" in render_table(EvalReport(rows=report.rows))


def _harness_eval(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "harness", "eval", *args, "-p", "no:randomly"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.deep
def test_an_evals_dir_without_evals_is_a_clear_usage_error_and_writes_no_report(
    tmp_path: Path,
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "a-file.txt").write_text("x", "utf-8")
    report = tmp_path / "report.json"
    for folder, why in (("empty", "no eval ran under empty"), ("a-file.txt", "not a folder")):
        done = _harness_eval(tmp_path, "--evals-dir", folder, "--report", str(report))
        assert done.returncode == 2, done.stdout + done.stderr
        last = done.stderr.rstrip().splitlines()[-1]
        assert last.startswith("error: ") and why in last, done.stderr
        assert not report.exists()
        assert not (tmp_path / ".harness").exists()
