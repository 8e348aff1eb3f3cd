"""``harness eval compare`` as a statistical gate, on reports built here."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.evals import (
    EvalReport,
    EvalRow,
    FailOn,
    GateSettings,
    Source,
    Status,
    Verdict,
    compare_reports,
    load_report,
)


def _rows(
    case: str,
    passes: int,
    runs: int,
    *,
    provider: str = "openai",
    model: str = "gpt-4.1-mini",
    duration: float = 1.0,
    **extra: Any,
) -> list[EvalRow]:
    return [
        EvalRow(
            scenario=case,
            nodeid=f"evals/test_x.py::test_{case}[{provider}-epoch{k}]",
            provider=provider,
            model=model,
            verdict=Verdict.PASS if k < passes else Verdict.FAIL,
            message="" if k < passes else "sentinel missing from the answer",
            epoch=k if runs > 1 else None,
            steps=3,
            input_tokens=100,
            output_tokens=10,
            duration_s=duration,
            source=Source.LIVE,
            **extra,
        )
        for k in range(runs)
    ]


def _write(path: Path, *groups: list[EvalRow]) -> Path:
    EvalReport(rows=tuple(row for rows in groups for row in rows)).write(path)
    return path


def _compare(old: Path, new: Path, *args: str) -> tuple[int, str]:
    done = CliRunner().invoke(app, ["eval", "compare", str(old), str(new), *args])
    return done.exit_code, done.stdout


@pytest.mark.parametrize(
    ("old", "new", "status"),
    [
        ((1, 1), (0, 1), Status.REGRESSION),
        ((3, 3), (1, 3), Status.REGRESSION),
        # Three runs a side detect no drop at 80% power, and 20 at a rate of 50%
        # only one of 39 points: these drops are inconclusive, not "weaker".
        ((3, 3), (2, 3), Status.INCONCLUSIVE),
        ((20, 20), (12, 20), Status.REGRESSION),
        ((18, 20), (8, 20), Status.REGRESSION),
        ((10, 20), (8, 20), Status.INCONCLUSIVE),
        ((2, 3), (3, 3), Status.CHANGED),
        ((3, 3), (3, 3), Status.SAME),
    ],
    ids=["1-1to0-1", "3-3to1-3", "3-3to2-3", "20to12", "18to8", "10to8", "gain", "same"],
)
def test_pass_rate_moves_are_judged(
    tmp_path: Path, old: tuple[int, int], new: tuple[int, int], status: Status
) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", *old))
    after = _write(tmp_path / "new.json", _rows("edit", *new, model="gpt-5-mini"))
    comparison = compare_reports(load_report(before), load_report(after))
    (change,) = comparison.changes
    assert change.status is status
    code, out = _compare(before, after, "--fail-on", "regression")
    assert code == (1 if status is Status.REGRESSION else 0), out
    row = next(line for line in out.splitlines() if line.startswith("edit "))
    assert f"{old[0]}/{old[1]} " in row and f"{new[0]}/{new[1]} " in row
    if status is Status.INCONCLUSIVE:
        assert "INCONCLUSIVE: edit [openai]" in out
        assert f"{change.rate.p_value:.3g}" in row  # type: ignore[union-attr]
        assert row.rstrip().endswith(f"inconclusive (needs ≥ {change.rate.needs_epochs} epochs)")  # type: ignore[union-attr]
        # --fail-on weaker failed on every drop before; it still does, with its own code.
        assert _compare(before, after, "--fail-on", "weaker")[0] == 6


def test_three_of_three_to_two_is_inconclusive_with_the_epochs_it_needs(tmp_path: Path) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", 3, 3))
    after = _write(tmp_path / "new.json", _rows("edit", 2, 3))
    code, out = _compare(before, after, "--fail-on", "regression")
    assert code == 0
    lines = out.splitlines()
    assert "INCONCLUSIVE: edit [openai]" in lines
    assert "  pass rate: 3/3 100% [44–100] -> 2/3 67% [21–94]" in lines
    assert (
        "  inconclusive (needs ≥ 19 epochs): down 33% (p=0.5); with 3 old and 3 new run(s) "
        "no drop is detectable at 80% power"
    ) in lines
    assert "  new fail: sentinel missing from the answer" in lines
    row = next(line for line in lines if line.startswith("edit "))
    assert "100% → 0% (k=3)" in row and " none " in row  # pass^3, and no detectable drop
    assert lines[-1].startswith("1 case(s) changed: 0 regression(s), 0 weaker, 1 inconclusive")


def test_a_regression_names_why(tmp_path: Path) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", 20, 20), _rows("plan", 3, 3))
    after = _write(tmp_path / "new.json", _rows("edit", 12, 20), _rows("plan", 1, 3))
    code, out = _compare(before, after, "--fail-on", "regression")
    assert code == 1
    assert "REGRESSION: edit [openai]" in out and "REGRESSION: plan [openai]" in out
    assert "significant drop: p=0.00164 < alpha 0.05 (one-sided Fisher exact)" in out
    assert "every old run passed and the rate fell by 67% >= max drop 50% (p=0.2)" in out
    assert out.splitlines()[-1].startswith("2 case(s) changed: 2 regression(s), 0 weaker")
    lenient = _compare(before, after, "--fail-on", "regression", "--max-drop", "0.9")
    assert "REGRESSION: plan" not in lenient[1] and "INCONCLUSIVE: plan [openai]" in lenient[1]
    # At alpha 0.001, 20 runs a side detect only a drop of 52 points: 40 is inconclusive.
    strict = _compare(before, after, "--alpha", "0.001")
    assert "INCONCLUSIVE: edit [openai]" in strict[1]
    assert "inconclusive (needs ≥ 27 epochs): down 40% (p=0.00164)" in strict[1]


def test_a_missing_provider_is_not_run_never_a_regression(tmp_path: Path) -> None:
    both = [*_rows("edit", 1, 1), *_rows("edit", 1, 1, provider="anthropic", model="claude")]
    before = _write(tmp_path / "old.json", both)
    after = _write(tmp_path / "new.json", _rows("edit", 1, 1))
    for gate in FailOn:
        code, out = _compare(before, after, "--fail-on", gate.value)
        assert code == 0, (gate, out)
    assert "NOT RUN in the new report (1 case(s), not compared): edit [anthropic]" in out
    row = next(line for line in out.splitlines() if "anthropic/agent" in line)
    assert "not run" in row and "REGRESSION" not in out
    back = _compare(after, before)[1]
    assert "NOT RUN in the old report (1 case(s), not compared): edit [anthropic]" in back


def test_two_identical_replays_never_fail_a_change_gate(tmp_path: Path) -> None:
    # Same answers, different wall time: the first test of a process pays SDK import.
    before = _write(tmp_path / "old.json", _rows("edit", 3, 3, duration=0.4))
    after = _write(tmp_path / "new.json", _rows("edit", 3, 3, duration=1.9))
    code, out = _compare(before, after, "--fail-on", "change")
    assert code == 0, out
    assert "slower: edit [openai]" in out.splitlines()
    assert "  duration: 0.40s -> 1.90s (median; counts only with --fail-on slower)" in out
    assert out.splitlines()[-1].endswith("0 other change(s); 0 not run, 1 slower")
    assert _compare(before, after, "--fail-on", "slower")[0] == 5
    quiet = _write(tmp_path / "quiet.json", _rows("edit", 3, 3, duration=0.7))
    assert _compare(before, quiet, "--fail-on", "slower")[0] == 0  # under 0.5 s extra


def test_other_changes_fail_only_the_change_gate(tmp_path: Path) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", 1, 1))
    more = [row.model_copy(update={"steps": 5}) for row in _rows("edit", 1, 1)]
    after = _write(tmp_path / "new.json", more)
    assert _compare(before, after, "--fail-on", "weaker")[0] == 0
    code, out = _compare(before, after, "--fail-on", "change")
    assert code == 4
    assert "  steps: 3 -> 5 (+2) per run" in out


def test_the_model_name_alone_is_no_change(tmp_path: Path) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", 2, 2))
    after = _write(tmp_path / "new.json", _rows("edit", 2, 2, model="gpt-5"))
    code, out = _compare(before, after, "--fail-on", "change")
    assert code == 0 and out.splitlines()[-1] == "no changes between the two reports"


def test_json_output_carries_rates_p_values_and_costs(tmp_path: Path) -> None:
    before = _write(tmp_path / "old.json", _rows("edit", 3, 3, cost_usd=0.002))
    after = _write(tmp_path / "new.json", _rows("edit", 1, 3, cost_usd=0.003))
    code, out = _compare(before, after, "--json", "--fail-on", "regression")
    assert code == 1
    data = json.loads(out)
    (case,) = data["cases"]
    assert (case["case"], case["provider"], case["model_role"]) == ("edit", "openai", "agent")
    assert case["status"] == "regression"
    assert case["p_value"] == pytest.approx(0.2)
    assert (case["old"]["passes"], case["old"]["runs"]) == (3, 3)
    assert (case["new"]["passes"], case["new"]["runs"]) == (1, 3)
    assert case["old"]["interval"][0] == pytest.approx(0.4385, abs=1e-4)
    assert case["new"]["cost_per_run_usd"] == pytest.approx(0.003)
    assert data["old_cost_usd"] == pytest.approx(0.002)  # per-run mean summed over cases
    assert data["settings"]["alpha"] == 0.05


def test_bad_thresholds_are_usage_errors(tmp_path: Path) -> None:
    report = _write(tmp_path / "r.json", _rows("edit", 1, 1))
    done = CliRunner().invoke(app, ["eval", "compare", str(report), str(report), "--alpha", "2"])
    assert done.exit_code == 2 and "alpha must be between 0 and 1" in done.stderr
    with pytest.raises(ValueError, match="max drop"):
        GateSettings(max_drop=0)


@pytest.mark.parametrize("version", [1, 2], ids=["schema1", "schema2"])
def test_older_reports_still_load_and_compare(tmp_path: Path, version: int) -> None:
    nodeid = "evals/test_x.py::test_edit[openai-epoch{}]"
    row = {"scenario": "edit", "nodeid": nodeid.format(0), "provider": "openai", "verdict": "pass"}
    if version == 2:
        row["source"] = "live"
    old = {"schema_version": version, "rows": [row, {**row, "nodeid": nodeid.format(1)}]}
    path = tmp_path / "old.json"
    path.write_text(json.dumps(old), "utf-8")
    after = _write(tmp_path / "new.json", _rows("edit", 0, 1, model="scripted"))
    code, out = _compare(path, after, "--fail-on", "regression")
    assert code == 1, out
    assert "  pass rate: 2/2 100% [34–100] -> 0/1 0% [0–79]" in out


def test_the_report_summarises_each_case(tmp_path: Path) -> None:
    path = _write(tmp_path / "r.json", _rows("edit", 2, 3, cost_usd=0.01), _rows("plan", 1, 1))
    stored = json.loads(path.read_text("utf-8"))
    edit, plan = stored["cases"]
    assert (edit["case"], edit["passes"], edit["runs"]) == ("edit", 2, 3)
    assert edit["interval"] == [0.2077, 0.9385]
    assert edit["cost_usd"] == pytest.approx(0.03)
    assert (plan["rate"], plan["cost_usd"]) == (1.0, None)
    assert load_report(path).rows == EvalReport.model_validate(stored).rows  # cases is derived


_verdicts = st.sampled_from([Verdict.PASS, Verdict.PASS, Verdict.FAIL, Verdict.ERROR, Verdict.SKIP])


@st.composite
def reports(draw: st.DrawFn) -> list[EvalRow]:
    rows = []
    for case in draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, unique=True)):
        for provider in draw(st.lists(st.sampled_from(["openai", "anthropic"]), min_size=1)):
            for epoch in range(draw(st.integers(1, 4))):
                rows.append(
                    EvalRow(
                        scenario=case,
                        nodeid=f"t::{case}[{provider}-{epoch}]",
                        provider=provider,
                        verdict=draw(_verdicts),
                        epoch=epoch,
                        steps=draw(st.integers(0, 5)),
                        input_tokens=draw(st.integers(0, 500)),
                        duration_s=draw(st.floats(0, 5)),
                        shape=draw(st.sampled_from([None, "agent.run", "agent.run\n  agent.step"])),
                        source=Source.SIMULATOR,
                    )
                )
    return rows


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(reports(), st.randoms(use_true_random=False))
def test_the_same_runs_timed_differently_never_fail_any_gate_but_slower(
    rows: list[EvalRow], rng: Any
) -> None:
    retimed = [row.model_copy(update={"duration_s": rng.uniform(0, 10)}) for row in rows]
    comparison = compare_reports(EvalReport(rows=tuple(rows)), EvalReport(rows=tuple(retimed)))
    for gate in (FailOn.REGRESSION, FailOn.WEAKER, FailOn.CHANGE):
        assert comparison.exit_code(gate) == 0
    assert not comparison.changed
    assert comparison.exit_code(FailOn.SLOWER) in (0, 5)


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(reports(), reports())
def test_a_case_never_regresses_unless_its_rate_fell(
    old: list[EvalRow], new: list[EvalRow]
) -> None:
    comparison = compare_reports(EvalReport(rows=tuple(old)), EvalReport(rows=tuple(new)))
    for change in comparison.changes:
        if change.status in (Status.REGRESSION, Status.WEAKER):
            assert change.old is not None and change.new is not None
            assert change.new.passes * change.old.runs < change.old.passes * change.new.runs
        if change.old is None or change.new is None:
            assert change.status is Status.NOT_RUN


def test_the_power_option_sets_what_counts_as_detectable(tmp_path: Path) -> None:
    # 4/5 -> 5/18: down 52 points, p 0.056. At 80% power these runs detect only a
    # larger drop (inconclusive); at 50% they detect this one, so it is weaker.
    before = _write(tmp_path / "old.json", _rows("edit", 4, 5))
    after = _write(tmp_path / "new.json", _rows("edit", 5, 18))
    code, out = _compare(before, after, "--fail-on", "weaker")
    assert code == 6 and "INCONCLUSIVE: edit [openai]" in out, out
    code, out = _compare(before, after, "--fail-on", "weaker", "--power", "0.5")
    assert code == 3 and "WEAKER: edit [openai]" in out, out
    assert "at 50% power" in out
    code, out = _compare(before, after, "--power", "1")
    assert code == 2
