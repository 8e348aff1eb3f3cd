"""Compare keys a case by its whole identity: two files' evals of one name stay two cases."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from harness.cli import app
from harness.evals import EvalReport, EvalRow, Source, Status, Verdict, compare_reports
from harness.evals._gate import GateSettings, judge_rates

_FILES = ("evals/test_a.py", "evals/test_b.py", "evals/sub/test_a.py")


def _row(path: str, verdict: Verdict, epoch: int, provider: str = "openai") -> EvalRow:
    return EvalRow(
        scenario="test_flow",
        nodeid=f"{path}::test_flow[{provider}-epoch{epoch}]",
        provider=provider,
        verdict=verdict,
        message="" if verdict is Verdict.PASS else "assert RunResult(\n  answer='x',\n)",
        epoch=epoch,
        steps=2,
        source=Source.SIMULATOR,
    )


@st.composite
def colliding(draw: st.DrawFn) -> tuple[list[EvalRow], list[EvalRow]]:
    """Two reports whose cases share one name across files and providers."""
    old: list[EvalRow] = []
    new: list[EvalRow] = []
    for path in draw(st.lists(st.sampled_from(_FILES), min_size=2, unique=True)):
        for provider in draw(st.lists(st.sampled_from(["openai", "anthropic"]), min_size=1)):
            for rows in (old, new):
                runs = draw(st.integers(1, 4))
                passes = draw(st.integers(0, runs))
                rows.extend(
                    _row(path, Verdict.PASS if k < passes else Verdict.FAIL, k, provider)
                    for k in range(runs)
                )
    return old, new


def _true_regressions(old: list[EvalRow], new: list[EvalRow]) -> int:
    """Regressions counted per (file, provider): the identity the rows really have."""
    tally: defaultdict[tuple[str, str], list[list[int]]] = defaultdict(lambda: [[0, 0], [0, 0]])
    for side, rows in enumerate((old, new)):
        for row in rows:
            counts = tally[(row.nodeid.partition("[")[0], row.provider)][side]
            counts[0] += row.verdict is Verdict.PASS
            counts[1] += 1
    found = 0
    for (op, orun), (np, nrun) in tally.values():
        if orun and nrun:
            verdict = judge_rates(op, orun, np, nrun, GateSettings())
            found += verdict.status is Status.REGRESSION
    return found


@pytest.mark.deep
@settings(max_examples=80, deadline=None)
@given(colliding())
def test_colliding_names_never_hide_a_regression(
    reports: tuple[list[EvalRow], list[EvalRow]],
) -> None:
    old, new = reports
    comparison = compare_reports(EvalReport(rows=tuple(old)), EvalReport(rows=tuple(new)))
    assert len(comparison.regressions) >= _true_regressions(old, new)
    # Every identity is its own case, and the text tells them apart.
    labels = [change.label for change in comparison.changes]
    assert len(labels) == len(set(labels))


def _write(path: Path, rows: list[EvalRow]) -> Path:
    EvalReport(rows=tuple(rows)).write(path)
    return path


def test_one_of_two_same_named_evals_regressing_fails_the_gate(tmp_path: Path) -> None:
    def rows(b_passes: bool) -> list[EvalRow]:
        verdict = Verdict.PASS if b_passes else Verdict.FAIL
        return [
            *(_row("evals/test_a.py", Verdict.PASS, k) for k in range(3)),
            _row("evals/test_b.py", verdict, 0),
        ]

    old, new = _write(tmp_path / "old.json", rows(True)), _write(tmp_path / "new.json", rows(False))
    done = CliRunner().invoke(
        app, ["eval", "compare", str(old), str(new), "--fail-on", "regression"]
    )
    assert done.exit_code == 1, done.stdout
    assert "REGRESSION: test_flow (evals/test_b.py::test_flow) [openai]" in done.stdout
    assert "WEAKER" not in done.stdout
    # One line per failure, whatever the repr it quoted spanned.
    assert "  new fail: assert RunResult( answer='x', )" in done.stdout.splitlines()


EVAL = """
import pytest

@pytest.mark.eval
def test_flow():
    assert {ok}
"""


def test_pytester_two_files_one_name_one_regresses_exits_1(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        **{"evals/test_a": EVAL.format(ok=True), "evals/test_b": EVAL.format(ok=True)}
    )
    pytester.runpytest("-p", "no:randomly", "--harness-report", "old.json", "evals")
    (pytester.path / "evals" / "test_b.py").write_text(EVAL.format(ok=False), "utf-8")
    pytester.runpytest("-p", "no:randomly", "--harness-report", "new.json", "evals")
    old, new = (str(pytester.path / name) for name in ("old.json", "new.json"))
    done = CliRunner().invoke(app, ["eval", "compare", old, new, "--fail-on", "regression"])
    assert done.exit_code == 1, done.stdout
    # No provider ran in these evals: the row says none, never scripted.
    assert "REGRESSION: test_flow (evals/test_b.py::test_flow) [none]" in done.stdout
    assert "test_flow (evals/test_a.py::test_flow)" in done.stdout


def test_means_and_the_status_column_read_plainly(tmp_path: Path) -> None:
    old = [_row("evals/test_a.py", Verdict.PASS, k) for k in range(3)]
    new = [r.model_copy(update={"steps": s}) for r, s in zip(old, (2, 2, 1), strict=True)]
    comparison = compare_reports(EvalReport(rows=tuple(old)), EvalReport(rows=tuple(new)))
    text = comparison.render()
    header = next(line for line in text.splitlines() if line.startswith("case "))
    assert header.split()[-1] == "status"
    assert "2 → 1.67" in text and "1.66667" not in text
    assert "  steps: 2 -> 1.67 (-0.33) per run" in text.splitlines()


def test_a_per_provider_baseline_summarises_what_it_did_not_run(tmp_path: Path) -> None:
    old = [_row(f"evals/test_{n}.py", Verdict.PASS, 0) for n in "abcdefg"]
    new = old + [r.model_copy(update={"provider": "anthropic"}) for r in old]
    text = compare_reports(EvalReport(rows=tuple(old)), EvalReport(rows=tuple(new))).render()
    lines = [line for line in text.splitlines() if "not run in" in line.lower()]
    assert lines == [
        "NOT RUN in the old report (7 case(s), not compared): "
        "test_flow (evals/test_a.py::test_flow) [anthropic], "
        "test_flow (evals/test_b.py::test_flow) [anthropic], "
        "test_flow (evals/test_c.py::test_flow) [anthropic], "
        "test_flow (evals/test_d.py::test_flow) [anthropic], "
        "test_flow (evals/test_e.py::test_flow) [anthropic] and 2 more"
    ]
