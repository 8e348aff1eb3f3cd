"""``--harness-sequential``: a case's later epochs are skipped once its verdict is certain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.evals import Verdict, compare_reports, load_report
from harness.evals._gate import Status
from harness.testing.naming import scenario_name
from harness.testing.rows.sequential import Sequential

EVALS = """
import os
import pytest

@pytest.mark.eval("steady")
def test_steady():
    pass

@pytest.mark.eval("broken")
def test_broken():
    assert not os.environ.get("BREAK_IT"), "the new model broke it"

@pytest.mark.eval("plain")
def test_not_repeated_unless_eval():
    pass
"""


@pytest.fixture
def project(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_evals=EVALS)
    return pytester


def _runs(path: Path) -> dict[str, tuple[int, int, int]]:
    """Per case: passes, runs that counted, epochs stopped."""
    report = load_report(path)
    found: dict[str, tuple[int, int, int]] = {}
    for row in report.rows:
        passes, runs, stopped = found.get(row.scenario, (0, 0, 0))
        counted = row.verdict is not Verdict.SKIP
        found[row.scenario] = (
            passes + (row.verdict is Verdict.PASS),
            runs + counted,
            stopped + row.stopped,
        )
    return found


def test_a_failed_case_stops_and_a_passing_case_runs_every_epoch(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BREAK_IT", "1")
    report = project.path / "r.json"
    result = project.runpytest(
        "-m",
        "eval",
        "--harness-epochs",
        "4",
        "--harness-sequential",
        "--harness-report",
        str(report),
    )
    result.assert_outcomes(passed=8, failed=1, skipped=3)
    runs = _runs(report)
    assert runs["steady"] == (4, 4, 0)
    assert runs["broken"] == (0, 1, 3)  # its epoch count is what ran
    stopped = [row for row in load_report(report).rows if row.stopped]
    assert {row.verdict for row in stopped} == {Verdict.SKIP}
    assert {row.epoch for row in stopped} == {1, 2, 3}
    assert "verdict certain after 1 run(s) of 4 epochs" in stopped[0].message
    # The stopped rows group with their case: one case, not a second "not run" one.
    assert {c["case"]: (c["passes"], c["runs"]) for c in load_report(report).cases}["broken"] == (
        0,
        1,
    )


def test_with_a_baseline_it_runs_on_until_the_compare_status_is_certain(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = project.path / "old.json", project.path / "new.json"
    project.runpytest("-m", "eval", "--harness-epochs", "4", "--harness-report", str(old))
    monkeypatch.setenv("BREAK_IT", "1")
    project.runpytest(
        *("-m", "eval", "--harness-epochs", "4", "--harness-sequential"),
        *("--harness-sequential-baseline", str(old), "--harness-report", str(new)),
    ).assert_outcomes(passed=8, failed=2, skipped=2)
    # 4/4 before: after one failure 3/4 (inconclusive) was still possible; after two,
    # every end (0/2 .. 2/4) falls by at least max drop 50%: a regression.
    assert _runs(new)["broken"] == (0, 2, 2)
    comparison = compare_reports(load_report(old), load_report(new))
    (broken,) = [c for c in comparison.changes if c.scenario == "broken"]
    assert broken.status is Status.REGRESSION
    assert any("new: stopped early after 2 run(s) of 4 epochs" in note for note in broken.notes)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--harness-sequential"], "give --harness-epochs N with N >= 2"),
        (
            ["--harness-sequential", "--harness-epochs", "3", "--harness-mutants"],
            "--harness-mutants runs each mutant once",
        ),
        (
            ["--harness-epochs", "3", "--harness-sequential-baseline", "old.json"],
            "applies to --harness-sequential",
        ),
        (
            [
                "--harness-sequential",
                "--harness-epochs",
                "3",
                "--harness-sequential-baseline",
                "missing.json",
            ],
            "missing.json",
        ),
    ],
    ids=["one-epoch", "mutants", "baseline-alone", "missing-baseline"],
)
def test_misuse_is_a_one_line_usage_error(
    project: pytest.Pytester, args: list[str], message: str
) -> None:
    result = project.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


@pytest.mark.deep  # starts two xdist workers
def test_workers_see_each_others_epochs(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BREAK_IT", "1")
    report = project.path / "r.json"
    project.runpytest(
        *("-m", "eval", "--harness-epochs", "8", "--harness-sequential", "-n", "2"),
        *("--harness-report", str(report)),
    )
    passes, ran, stopped = _runs(report)["broken"]
    assert passes == 0 and ran + stopped == 8
    assert 1 <= ran <= 2 and stopped >= 6  # at most one epoch in flight on the other worker
    assert _runs(report)["steady"] == (8, 8, 0)


# Two cases of one test and scenario that compare pools into one row group: the
# provider parameter of one does not tell them apart from the other, which has none
# (its rows take the run's provider). A case of a test of its own is alone.
POOLED = """
import pytest

@pytest.mark.eval("same")
@pytest.mark.parametrize("provider_name", ["openai", None])
def test_pooled(provider_name):
    pass

@pytest.mark.eval("alone")
def test_alone():
    pass
"""


def _finish(rule: Sequential, item: pytest.Item, *, passed: bool) -> None:
    """Feed ``rule`` one finished epoch of ``item``, as the plugin's report hook does."""
    provider = item.callspec.params.get("provider_name")  # type: ignore[attr-defined]
    row = json.dumps({"scenario": scenario_name(item), "provider": provider or "scripted"})
    for when in ("setup", "call", "teardown"):
        outcome = "failed" if when == "call" and not passed else "passed"
        properties = [("harness_eval", row)] if when == "teardown" else []
        report = pytest.TestReport(
            item.nodeid, item.location, {}, outcome, None, when, user_properties=properties
        )
        rule.note(item, report)


def _stops(rule: Sequential, item: pytest.Item) -> bool:
    try:
        rule.check(item)
    except pytest.skip.Exception:
        return True
    return False


def test_a_case_whose_runs_compare_pools_with_another_never_stops_against_a_baseline(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    module = pytester.getmodulecol(POOLED, configargs=("--harness-epochs", "4"))
    items = pytester.genitems([module])
    rule = Sequential(folder=tmp_path, planned=4, baseline={})
    rule.order(items)
    epochs: dict[tuple[str, object], list[pytest.Item]] = {}
    for item in items:  # ordered: each case's four epochs one after another
        provider = item.callspec.params.get("provider_name")  # type: ignore[attr-defined]
        epochs.setdefault((item.originalname, provider), []).append(item)  # type: ignore[attr-defined]
    stops = {}
    for case, (first, second, third, _) in epochs.items():
        _finish(rule, first, passed=False)
        _finish(rule, second, passed=False)
        stops[case] = _stops(rule, third)
    # Two failures of four against a baseline without the case settle a case alone;
    # pooled, the other case's epochs count too, so neither of the pair stops.
    assert stops == {
        ("test_pooled", "openai"): False,
        ("test_pooled", None): False,
        ("test_alone", None): True,
    }
