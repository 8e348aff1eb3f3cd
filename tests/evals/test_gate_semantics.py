"""The upgrade gate's defaults: it fails on a regression unless told not to, and
refuses, in one line, any file that is not an eval report with rows."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from harness.cli import app
from harness.evals import EvalReport, EvalRow, Source, Verdict


def _report(path: Path, *verdicts: Verdict, record_mode: str = "none") -> Path:
    rows = tuple(
        EvalRow(
            scenario=f"case{k}",
            nodeid=f"evals/test_x.py::test_case{k}[openai]",
            provider="openai",
            model="gpt-4.1-mini",
            verdict=verdict,
            steps=2,
            duration_s=1.0,
            source=Source.LIVE,
        )
        for k, verdict in enumerate(verdicts)
    )
    EvalReport(rows=rows, record_mode=record_mode).write(path)
    return path


def _trace(path: Path) -> Path:
    span = {
        "span_id": "a",
        "parent_id": None,
        "trace_id": "t",
        "kind": "agent.run",
        "name": "agent.run",
        "started_at": "2026-12-03T00:00:00+00:00",
        "ended_at": "2026-12-03T00:00:01+00:00",
        "status": "ok",
        "attributes": {},
        "children": [],
    }
    document = {
        "schema_version": 2,
        "capture_mode": "metadata",
        "trace_id": "t",
        "session_key": None,
        "created_at": "2026-12-03T00:00:00+00:00",
        "root": span,
        "metadata": {},
    }
    path.write_text(json.dumps(document), "utf-8")
    return path


def _harness(*args: str | Path) -> tuple[int, str]:
    done = CliRunner().invoke(app, [str(arg) for arg in args])
    return done.exit_code, done.output


def test_compare_fails_on_a_regression_by_default(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", Verdict.PASS, Verdict.PASS)
    new = _report(tmp_path / "new.json", Verdict.FAIL, Verdict.PASS)
    code, out = _harness("eval", "compare", old, new)
    assert code == 1, out
    assert "REGRESSION" in out
    code, out = _harness("eval", "compare", old, new, "--fail-on", "never")
    assert code == 0, out
    assert "REGRESSION" in out  # still reported, only not failing


def test_compare_refuses_a_trace_in_one_line(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", Verdict.PASS)
    trace = _trace(tmp_path / "trace.json")
    for args in ((old, trace), (trace, old)):
        code, out = _harness("eval", "compare", *args, "--fail-on", "regression")
        assert code != 0, out
        (line,) = [line for line in out.splitlines() if line.strip()]
        assert "is not an eval report" in line
        assert "looks like a trace" in line
        assert "Traceback" not in out


def test_compare_refuses_an_empty_report(tmp_path: Path) -> None:
    old = _report(tmp_path / "old.json", Verdict.PASS)
    empty = _report(tmp_path / "empty.json")
    code, out = _harness("eval", "compare", old, empty)
    assert code != 0, out
    assert "has no rows" in out
    assert "not run" not in out


def test_merge_refuses_a_trace_and_mixed_record_modes(tmp_path: Path) -> None:
    shard = _report(tmp_path / "a.json", Verdict.PASS)
    trace = _trace(tmp_path / "trace.json")
    merged = tmp_path / "merged.json"
    code, out = _harness("eval", "merge", shard, trace, "--output", merged)
    assert code != 0, out
    assert "is not an eval report" in out
    assert not merged.exists()
    live = tmp_path / "b.json"
    EvalReport(
        rows=(
            EvalRow(
                scenario="other",
                nodeid="evals/test_x.py::test_other[openai]",
                provider="openai",
                model="gpt-4.1-mini",
                verdict=Verdict.PASS,
                source=Source.LIVE,
            ),
        ),
        record_mode="all",
    ).write(live)
    code, out = _harness("eval", "merge", shard, live, "--output", merged)
    assert code != 0, out
    assert "different record modes" in out
    assert not merged.exists()
