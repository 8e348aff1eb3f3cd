"""``--harness-epochs 5`` with one flaky case: pass^k beside pass@1, end to end (pytester)."""

from __future__ import annotations

import json

import pytest

import harness.app
import harness.testing.assertions.trace_assertions
import harness.tools.builtin
from harness.evals import EvalReport, compare_reports, load_report

# pytester's in-process runs drop the modules a run imported once it ends: keep
# these loaded, so that each run does not import (and assertion-rewrite) them anew.
PRELOADED = (harness.app, harness.testing.assertions.trace_assertions, harness.tools.builtin)

# The flaky case's scripted model answers wrong on every even epoch: 3 passes in 5,
# the same 3 on every run (no randomness). FLAKY=0 in the environment steadies it.
EVAL_TESTS = """
import os

import pytest


@pytest.mark.eval("steady")
def test_steady(harness_app, scripted_provider):
    scripted_provider.add("right")
    assert harness_app.run("go").text == "right"


@pytest.mark.eval("flaky")
def test_flaky(harness_app, scripted_provider, harness_epoch):
    wrong = os.environ.get("FLAKY", "1") == "1" and harness_epoch % 2 == 0
    scripted_provider.add("wrong" if wrong else "right")
    assert harness_app.run("go").text == "right", "verdict: the answer was wrong"
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_evals=EVAL_TESTS)
    return pytester


def _cases(report: EvalReport) -> dict[str, dict[str, object]]:
    data = json.loads(report.model_dump_json())
    return {case["case"]: case for case in data["cases"]}


def test_five_epochs_report_pass_hat_k_per_case_and_for_the_suite(
    project: pytest.Pytester,
) -> None:
    path = project.path / "report.json"
    result = project.runpytest("--harness-report", str(path), "--harness-epochs", "5")
    result.assert_outcomes(passed=8, failed=2)
    report = load_report(path)
    cases = _cases(report)
    flaky, steady = cases["flaky"], cases["steady"]
    assert (flaky["passes"], flaky["runs"], flaky["pass_at_1"]) == (3, 5, 0.6)
    # C(3,2)/C(5,2) = 0.3; pass^5 = 0: some epoch failed. Intervals hold each value.
    assert flaky["pass_hat_k"] == {"1": 0.6, "2": 0.3, "3": 0.1, "4": 0.0, "5": 0.0}
    for k, (low, high) in flaky["pass_hat_k_interval"].items():
        assert low <= flaky["pass_hat_k"][k] <= high
    assert steady["pass_hat_k"]["5"] == 1.0 and steady["pass_hat_k_interval"]["5"][1] == 1.0
    suite = json.loads(report.model_dump_json())["suite"]
    assert (suite["k"], suite["cases"], suite["pass_hat_k"], suite["pass_at_1"]) == (5, 2, 0.5, 0.8)
    low, high = suite["pass_hat_k_interval"]
    assert low < 0.5 < high and suite["interval_over"] == "cases"


def test_bare_pytest_with_epochs_prints_the_pass_rates(project: pytest.Pytester) -> None:
    result = project.runpytest("--harness-epochs", "5")
    result.assert_outcomes(passed=8, failed=2)
    lines = result.stdout.lines
    table = lines[lines.index(next(x for x in lines if "harness pass rates" in x)) + 1 :]
    flaky = next(line for line in table if line.startswith("  flaky"))
    steady = next(line for line in table if line.startswith("  steady"))
    assert flaky.split()[2:] == ["3/5", "60%", "[23–88]", "pass^5", "0%", "[0–53]"]
    assert steady.split()[2:] == ["5/5", "100%", "[57–100]", "pass^5", "100%", "[6–100]"]
    assert "  mean over 2 case(s): pass@1 80% [22–98], pass^5 50% [9–91]" in table[3]


@pytest.mark.deep  # two pytest runs of ten epochs
def test_a_steady_baseline_against_the_flaky_run_compares_pass_hat_k(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = project.path / "old.json", project.path / "new.json"
    monkeypatch.setenv("FLAKY", "0")
    project.runpytest("--harness-report", str(old), "--harness-epochs", "5").assert_outcomes(
        passed=10
    )
    monkeypatch.setenv("FLAKY", "1")
    project.runpytest("--harness-report", str(new), "--harness-epochs", "5")
    comparison = compare_reports(load_report(old), load_report(new))
    (flaky,) = [c for c in comparison.changes if c.scenario == "flaky"]
    assert flaky.rate is not None and flaky.rate.pass_k is not None
    # 5/5 -> 3/5: pass^5 100% -> 0%, but five runs a side leave that within chance.
    assert flaky.rate.pass_k.k == 5 and not flaky.rate.pass_k.regression
    assert any(note.startswith("pass^5 100% [6–100] -> 0% [0–53]") for note in flaky.notes)
    suite = comparison.suite_pass_k
    assert suite is not None and (suite.old.pass_k.value, suite.new.pass_k.value) == (1.0, 0.5)
