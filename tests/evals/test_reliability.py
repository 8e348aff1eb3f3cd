"""pass^k with intervals (a case's, the suite's over cases) and compare's gate on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals import EvalReport, EvalRow, Source, Verdict, compare_reports, load_report
from harness.evals._gate import FailOn, GateSettings, Status, judge_rates
from harness.evals._stats import (
    Interval,
    drop_interval,
    pass_hat_k,
    pass_hat_k_interval,
    wilson_interval,
    wilson_mean_interval,
)
from harness.evals.reliability import case_pass_k, compare_suites, judge_pass_k, suite_pass_k


@st.composite
def counts(draw: st.DrawFn, max_runs: int = 20, min_runs: int = 1) -> tuple[int, int]:
    runs = draw(st.integers(min_value=min_runs, max_value=max_runs))
    return draw(st.integers(min_value=0, max_value=runs)), runs


def _inside(value: float, interval: Interval) -> bool:
    return interval.low - 1e-12 <= value <= interval.high + 1e-12


@settings(max_examples=100, deadline=None)
@given(counts(), st.data())
def test_a_cases_pass_hat_k_interval_holds_it_and_shrinks_with_k(
    count: tuple[int, int], data: st.DataObject
) -> None:
    passes, runs = count
    k = data.draw(st.integers(min_value=1, max_value=runs))
    interval = pass_hat_k_interval(passes, runs, k)
    assert 0.0 <= interval.low <= interval.high <= 1.0
    assert _inside(pass_hat_k(passes, runs, k), interval)
    # pass^k <= pass@1, and both ends of its interval fall as k grows.
    assert pass_hat_k(passes, runs, k) <= passes / runs + 1e-12
    rate = wilson_interval(passes, runs)
    assert interval.high <= rate.high + 1e-12 and interval.low <= rate.low + 1e-12
    if k > 1:
        wider = pass_hat_k_interval(passes, runs, k - 1)
        assert interval.low <= wider.low + 1e-12 and interval.high <= wider.high + 1e-12
    assert pass_hat_k_interval(passes, runs, 1) == rate


@settings(max_examples=100, deadline=None)
@given(st.lists(counts(), min_size=1, max_size=12))
def test_the_suites_pass_hat_k_is_a_mean_over_cases_inside_its_interval(
    cases: list[tuple[int, int]],
) -> None:
    suite = suite_pass_k(cases)
    assert suite is not None and suite.cases == len(cases)
    k = min(runs for _, runs in cases)
    assert suite.pass_k.k == k
    assert _inside(suite.pass_k.value, suite.pass_k.interval)
    assert _inside(suite.pass_at_1.value, suite.pass_at_1.interval)
    assert suite.pass_k.value <= suite.pass_at_1.value + 1e-12
    assert 0.0 <= suite.pass_k.interval.low <= suite.pass_k.interval.high <= 1.0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=40))
def test_over_cases_of_zero_or_one_it_is_the_wilson_interval_of_the_count(
    reliable: list[bool],
) -> None:
    # Each case ran k times: pass^k is 1 when all passed, else 0.
    got = wilson_mean_interval(float(sum(reliable)), len(reliable))
    assert got == wilson_interval(sum(reliable), len(reliable))


@settings(max_examples=100, deadline=None)
@given(counts(min_runs=2), counts(min_runs=2))
def test_the_drop_interval_holds_the_drop_and_mirrors(
    old: tuple[int, int], new: tuple[int, int]
) -> None:
    k = min(old[1], new[1])
    before, after = case_pass_k(*old, k), case_pass_k(*new, k)
    fall = judge_pass_k(before, after)
    assert _inside(before.value - after.value, fall.drop)
    back = drop_interval(after.value, after.interval, before.value, before.interval)
    assert back.low == pytest.approx(-fall.drop.high) and back.high == pytest.approx(-fall.drop.low)
    if fall.regression:  # a regression is a fall, never a gain
        assert after.value < before.value


@settings(max_examples=100, deadline=None)
@given(counts(min_runs=2), counts(min_runs=2))
def test_fewer_new_passes_never_lift_a_pass_hat_k_regression(
    old: tuple[int, int], new: tuple[int, int]
) -> None:
    passes, runs = new
    fell = judge_rates(*old, passes, runs, GateSettings()).pass_k
    assert fell is not None
    if fell.regression and passes > 0:
        worse = judge_rates(*old, passes - 1, runs, GateSettings())
        assert worse.pass_k is not None and worse.pass_k.regression
        assert worse.status is Status.REGRESSION


def test_a_case_regresses_on_pass_hat_k_where_fisher_does_not() -> None:
    # 5/5 -> 6/11: down 45 points (under --max-drop 50%), p = 0.106; pass^5 100% -> 1%.
    verdict = judge_rates(5, 5, 6, 11, GateSettings())
    assert verdict.p_value > 0.05 and verdict.status is Status.REGRESSION
    assert verdict.reason.startswith("pass^5 100% [6–100] -> 1% [0–30]: down 99%")
    assert verdict.reason.endswith("beyond chance: a regression")
    # At a stricter alpha the intervals widen (99.9%) and the same fall is within chance.
    strict = judge_rates(5, 5, 6, 11, GateSettings(alpha=0.001))
    assert strict.status is not Status.REGRESSION and strict.pass_k is not None
    assert "99.9% interval" in strict.pass_k.reason


def test_one_run_a_side_has_no_pass_hat_k_gate() -> None:
    assert judge_rates(1, 1, 0, 1, GateSettings()).pass_k is None
    assert compare_suites([((1, 1), (0, 1)), ((5, 5), (5, 5))]) is None


def _rows(case: str, passes: int, runs: int, model: str = "gpt-4.1-mini") -> list[EvalRow]:
    return [
        EvalRow(
            scenario=case,
            nodeid=f"evals/test_x.py::test_{case}[openai-epoch{k}]",
            provider="openai",
            model=model,
            verdict=Verdict.PASS if k < passes else Verdict.FAIL,
            epoch=k,
            source=Source.LIVE,
        )
        for k in range(runs)
    ]


def _suite(flaky: int, model: str) -> EvalReport:
    """Ten cases of five epochs; the first ``flaky`` fail one epoch each."""
    rows = [row for n in range(10) for row in _rows(f"c{n}", 4 if n < flaky else 5, 5, model)]
    return EvalReport(rows=tuple(rows))


def test_compare_gates_on_the_suites_pass_hat_k() -> None:
    old = _suite(0, "gpt-4.1-mini")
    # Four cases lose one epoch in five: each alone is inconclusive (p = 0.5), the pooled
    # rate's drop (50/50 -> 46/50) is not significant, but pass^5 falls 100% -> 60%.
    comparison = compare_reports(old, _suite(4, "gpt-5-mini"))
    assert not comparison.regressions and comparison.regressed
    assert comparison.exit_code(FailOn.REGRESSION) == 1 and comparison.exit_code(FailOn.NEVER) == 0
    text = comparison.render()
    assert (
        "REGRESSION: suite pass^5 over 10 case(s) (interval over cases): 100% [72–100] -> "
        "60% [31–83]: down 40%, 95% interval [+4, +69], beyond chance: a regression"
    ) in text.splitlines()
    assert text.splitlines()[-1].endswith("; the suite's pass^k regressed")
    suite = json.loads(comparison.to_json())["suite_pass_k"]
    assert suite["k"] == 5 and suite["cases"] == 10 and suite["regression"] is True
    # Three such cases stay within chance: a line says so, and the gate passes.
    within = compare_reports(old, _suite(3, "gpt-5-mini"))
    assert not within.regressed
    assert "within chance" in within.render() and "REGRESSION" not in within.render()


def _write(path: Path, report: EvalReport) -> Path:
    report.write(path)
    return path


@pytest.mark.deep  # a subprocess: the CLI's exit code end to end
def test_eval_compare_exits_1_on_the_suites_pass_hat_k(tmp_path: Path) -> None:
    old = _write(tmp_path / "old.json", _suite(0, "gpt-4.1-mini"))
    new = _write(tmp_path / "new.json", _suite(4, "gpt-5-mini"))
    done = subprocess.run(
        [sys.executable, "-m", "harness", "eval", "compare", str(old), str(new)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "REGRESSION: suite pass^5 over 10 case(s)" in done.stdout


def test_the_report_json_carries_intervals_and_the_suite() -> None:
    report = EvalReport(rows=(*_rows("edit", 3, 5), *_rows("plan", 5, 5)))
    data = json.loads(report.model_dump_json())
    edit = next(case for case in data["cases"] if case["case"] == "edit")
    assert edit["pass_hat_k"]["5"] == 0.0 and edit["pass_hat_k_interval"]["1"] == edit["interval"]
    assert edit["pass_hat_k_interval"]["5"][0] == 0.0 < edit["pass_hat_k_interval"]["5"][1]
    assert data["suite"]["k"] == 5 and data["suite"]["pass_hat_k"] == 0.5
    assert data["suite"]["interval_over"] == "cases" and data["suite"]["cases"] == 2
    assert EvalReport(rows=()).suite is None


# A schema-3 report as harness wrote it before pass^k intervals and the suite.
OLD_REPORT = {
    "schema_version": 3,
    "created_at": "2026-11-01T00:00:00+00:00",
    "harness_version": "0.9",
    "record_mode": "none",
    "rows": [
        {
            "scenario": "edit",
            "nodeid": f"evals/test_x.py::test_edit[openai-epoch{k}]",
            "provider": "openai",
            "model": "gpt-4.1-mini",
            "verdict": "pass" if k else "fail",
            "epoch": k,
            "source": "live",
        }
        for k in range(3)
    ],
    "mutants": [],
    "prices": None,
    "cases": [{"case": "edit", "pass_hat_k": {"1": 0.6667}}],
}


def test_a_report_written_before_the_fields_loads_and_gains_them(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    path.write_text(json.dumps(OLD_REPORT), encoding="utf-8")
    report = load_report(path)
    assert [row.verdict for row in report.rows] == [Verdict.FAIL, Verdict.PASS, Verdict.PASS]
    assert report.suite is not None and report.suite["pass_hat_k"] == 0.0
    (case,) = report.cases
    assert case["pass_hat_k_interval"]["3"][0] == 0.0
    # Written again, it loads again (the derived fields are ignored on the way in).
    report.write(tmp_path / "again.json")
    assert load_report(tmp_path / "again.json").rows == report.rows
