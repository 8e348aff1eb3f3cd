"""Sequential stopping's rule: it stops only when no way the rest can go changes the verdict.

The oracle is the real compare: for every completion of a stopped case's epochs
(each remaining epoch passes, fails or is skipped) a report is built and
``compare_reports`` judges it against the baseline; every completion must get
the same status, and the case must have failed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals import EvalReport, EvalRow, Verdict, compare_reports
from harness.evals._gate import Status
from harness.evals.sequential import EpochTally, render_stops, stop_reason


def _rows(passes: int, failures: int, skips: int, nodeid: str = "e.py::test_case") -> list[EvalRow]:
    verdicts = [Verdict.PASS] * passes + [Verdict.FAIL] * failures + [Verdict.SKIP] * skips
    return [
        EvalRow(scenario="case", nodeid=nodeid, verdict=v, epoch=i) for i, v in enumerate(verdicts)
    ]


def _status(old: tuple[int, int] | None, passes: int, failures: int, skips: int) -> Status:
    old_rows = [] if old is None else _rows(old[0], old[1] - old[0], 0)
    other = EvalRow(scenario="other", nodeid="e.py::test_other", verdict=Verdict.PASS)
    comparison = compare_reports(
        EvalReport(rows=(*old_rows, other)), EvalReport(rows=tuple(_rows(passes, failures, skips)))
    )
    (change,) = [c for c in comparison.changes if c.scenario == "case"]
    return change.status


def _completions(tally: EpochTally) -> list[tuple[int, int, int]]:
    left = tally.remaining
    return [
        (tally.passes + p, tally.failures + f, tally.skips + left - p - f)
        for p in range(left + 1)
        for f in range(left - p + 1)
    ]


@st.composite
def _situations(draw: st.DrawFn) -> tuple[EpochTally, tuple[int, int] | None]:
    planned = draw(st.integers(2, 7))
    done = draw(st.integers(0, planned))
    passes = draw(st.integers(0, done))
    failures = draw(st.integers(0, done - passes))
    tally = EpochTally(passes, failures, done - passes - failures, planned)
    old_runs = draw(st.integers(0, 8))
    old = None if old_runs == 0 else (draw(st.integers(0, old_runs)), old_runs)
    return tally, old


@settings(max_examples=300, deadline=None)
@given(_situations())
def test_a_stop_with_a_baseline_leaves_every_completion_the_same_compare_status(
    situation: tuple[EpochTally, tuple[int, int] | None],
) -> None:
    tally, old = situation
    if stop_reason(tally, old, baseline=True) is None:
        return
    assert tally.failures > 0  # the case's pass/fail is decided
    statuses = {_status(old, *final) for final in _completions(tally)}
    assert len(statuses) == 1, (tally, old, statuses)


@settings(max_examples=200, deadline=None)
@given(_situations())
def test_without_a_baseline_it_stops_exactly_when_a_run_failed(
    situation: tuple[EpochTally, tuple[int, int] | None],
) -> None:
    tally, _ = situation
    stops = stop_reason(tally) is not None
    assert stops == (tally.failures > 0 and tally.remaining > 0)


@pytest.mark.parametrize(
    ("tally", "old", "stops"),
    [
        (EpochTally(0, 5, 0, 10), (10, 10), True),  # 0/5 already: any end is a regression
        (EpochTally(0, 1, 0, 10), (10, 10), False),  # 9/10 would be weaker, 0/10 a regression
        (EpochTally(3, 0, 0, 10), (10, 10), False),  # nothing failed: one failure would flip it
        (EpochTally(0, 1, 0, 10), None, True),  # the baseline lacks the case: not run
        (EpochTally(0, 1, 0, 10), (0, 10), False),  # same rate: other facts decide
    ],
    ids=["certain-regression", "open-regression", "no-failure", "not-in-baseline", "same-rate"],
)
def test_known_situations(tally: EpochTally, old: tuple[int, int] | None, stops: bool) -> None:
    assert (stop_reason(tally, old, baseline=True) is not None) is stops


def test_a_tally_beyond_its_plan_is_refused() -> None:
    with pytest.raises(ValueError, match="within the 3 planned"):
        EpochTally(2, 2, 0, 3)


def test_render_stops_names_the_stopped_cases_and_the_epochs_saved() -> None:
    stopped = [row.model_copy(update={"stopped": True}) for row in _rows(0, 0, 3, "e.py::test_b")]
    rows = [
        *_rows(4, 0, 0),
        *_rows(0, 1, 0, "e.py::test_b"),
        *[r.model_copy(update={"scenario": "b", "epoch": 1 + i}) for i, r in enumerate(stopped)],
    ]
    rows[4] = rows[4].model_copy(update={"scenario": "b"})
    text = render_stops(rows)
    assert text.splitlines()[0] == (
        "sequential stopping: 1 of 2 case(s) stopped early; 3 of 8 epochs not run (38% saved)"
    )
    assert "b [scripted]: stopped after 1 run(s) of 4 epochs (0 passed)" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--sequential"], "give --epochs N with N >= 2"),
        (["--sequential", "--epochs", "3", "--mutants"], "run --mutants without it"),
    ],
    ids=["one-epoch", "mutants"],
)
def test_the_cli_refuses_sequential_where_it_cannot_stop_anything(
    tmp_path: Path, args: list[str], message: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harness", "eval", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert message in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
