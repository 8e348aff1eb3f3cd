"""pass^k beside pass@1: in the report's cases, the epochs table and compare's JSON."""

from __future__ import annotations

import json

from harness.evals import EvalReport, EvalRow, Source, Verdict, compare_reports, render_pass_rates


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


def test_the_reports_cases_carry_pass_hat_k_for_every_k() -> None:
    report = EvalReport(rows=(*_rows("edit", 3, 4), *_rows("plan", 2, 2)))
    cases = {case["case"]: case for case in json.loads(report.model_dump_json())["cases"]}
    edit = cases["edit"]
    assert edit["pass_at_1"] == 0.75
    # C(3,k)/C(4,k): 3/4, 3/6, 1/4, 0.
    assert edit["pass_hat_k"] == {"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0}
    assert cases["plan"]["pass_hat_k"] == {"1": 1.0, "2": 1.0}


def test_the_epochs_table_shows_pass_hat_k_and_its_mean() -> None:
    report = EvalReport(rows=(*_rows("edit", 3, 4), *_rows("plan", 2, 2)))
    lines = render_pass_rates(report).splitlines()
    edit = next(line for line in lines if line.strip().startswith("edit"))
    plan = next(line for line in lines if line.strip().startswith("plan"))
    # pass^4 is 0 (a run failed); its interval is the rate's Wilson interval to the 4th.
    assert edit.split()[2:] == ["3/4", "75%", "[30–95]", "pass^4", "0%", "[0–83]"]
    assert plan.split()[-3:] == ["pass^2", "100%", "[12–100]"]
    # Means at the k every case reached (2): pass^2 (3/6 + 1) / 2, Wilson over 2 cases.
    assert lines[-1] == (
        "  mean over 2 case(s): pass@1 88% [26–99], pass^2 75% [20–97] (pass^k: the chance "
        "that k runs of a case all pass; intervals over the cases)"
    )


def test_compare_puts_pass_hat_k_at_the_runs_both_sides_have() -> None:
    old = EvalReport(rows=tuple(_rows("edit", 5, 5)))
    new = EvalReport(rows=tuple(_rows("edit", 2, 3, model="gpt-5-mini")))
    (case,) = json.loads(compare_reports(old, new).to_json())["cases"]
    pass_k = case["pass_k"]
    assert {key: pass_k[key] for key in ("k", "old", "new")} == {"k": 3, "old": 1.0, "new": 0.0}
    # 5/5 against 2/3 is no fall beyond the interval: its low end is below zero.
    assert pass_k["regression"] is False and pass_k["drop_interval"][0] < 0
    assert case["old"]["pass_hat_k"]["5"] == 1.0 and case["new"]["pass_at_1"] == 2 / 3
    assert case["status"] == "inconclusive"
    # 5 old and 3 new runs catch a fall from 100% only when it is 93 points or more.
    assert round(case["detectable_drop"], 2) == 0.93 and case["needs_epochs"] == 19
    suite = json.loads(compare_reports(old, new).to_json())["suite"]
    assert suite["inconclusive"] is True and suite["method"] == "exact"
