"""An eval report as the report page's script reads it: one entry per case and
provider (epochs folded into a pass rate), the traces of its runs, and mutants.

Each run's trace files are read now and embedded, so the page links to them
without the files; a trace that is gone (rows point into the eval's temporary
state dir) is listed as missing with its path, never silently dropped.

The case table shows only the columns that hold something for some case
(``columns``); each one left out is named with why in ``dropped``, so a column
of "–" (cost when nothing is priced) gives way to one line that says so.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from harness.core.errors import HarnessError
from harness.evals import EvalReport, EvalRow
from harness.evals.aggregate import CaseRuns, aggregate_rows
from harness.evals.mutant_results import EvalMutants, MutantResult, summarize_mutants
from harness.evals.reliability import case_pass_k, suite_pass_k
from harness.tracing import TraceTree
from harness.view._report_folder import run_time
from harness.view._run_transcripts import TranscriptIndex
from harness.view._trace_cases import TraceCase
from harness.view._trace_data import trace_data

__all__ = ["CASE_COLUMNS", "RunSources", "TraceIndex", "report_data", "run_data"]

# The case table's columns, in order (the page has a header and a cell for each).
CASE_COLUMNS: Final = (
    "case",
    "provider",
    "source",
    "result",
    "steps",
    "tool_calls",
    "tokens",
    "cost",
    "duration",
    "failure",
    "trace",
)


class TraceIndex:
    """Trace files read once each, numbered in the order first asked for."""

    def __init__(self) -> None:
        self.traces: list[dict[str, Any]] = []
        self.trees: dict[str, TraceTree] = {}
        self._known: dict[str, int | str] = {}

    def link(self, path: str, case: TraceCase | None = None) -> dict[str, Any]:
        """``{"path", "index"}`` of an embedded trace, or ``{"path", "missing"}`` saying why
        not; ``case``: the eval case of the row that names it."""
        if path not in self._known:
            self._known[path] = self._read(Path(path), case)
        found = self._known[path]
        if isinstance(found, int):
            return {"path": path, "index": found}
        return {"path": path, "missing": found}

    def add(self, tree: TraceTree, source: str, case: TraceCase | None = None) -> int:
        """Embed a trace given as such (not through a report row); its index."""
        # The page passes a run's transcript to the trace it opens (it may come from
        # the cassette), so the embedded trace carries none of its own.
        self.traces.append(trace_data(tree, source=source, with_transcript=False, case=case))
        self.trees[source] = tree
        return len(self.traces) - 1

    def _read(self, path: Path, case: TraceCase | None) -> int | str:
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            return "the trace file is gone (it lived in the eval's temporary state dir)"
        except OSError as exc:
            return f"cannot read the trace file: {exc.strerror or exc}"
        try:
            tree = TraceTree.from_json(raw, source=str(path))
        except HarnessError as exc:
            return f"not a readable trace: {exc}"
        return self.add(tree, str(path), case)


def report_data(
    report: EvalReport,
    *,
    source: str,
    traces: TraceIndex,
    transcripts: TranscriptIndex | None = None,
) -> dict[str, Any]:
    """Return the JSON-able description of ``report`` for the page.

    Args:
        report: the eval report.
        source: where it was read from, shown on the page.
        traces: where the runs' trace files are read into (shared by several reports).
        transcripts: where the runs' transcripts are read into; default: from
            replay-mode traces, and cassettes under the ``cassettes/`` folders
            above ``source``.
    """
    if transcripts is None:
        transcripts = TranscriptIndex()
    rows = report.rows
    cases = [
        _case(runs, RunSources(traces, transcripts, Path(source)))
        for runs in aggregate_rows(rows).values()
    ]
    dropped = _empty_columns(cases) if cases else {}
    suite = suite_pass_k([(case["passes"], case["runs"]) for case in cases])
    return {
        "source": source,
        "created_at": report.created_at,
        "when": when.whole if (when := run_time(report, Path(source))) else report.created_at,
        "harness_version": report.harness_version,
        "record_mode": report.record_mode,
        "prices": report.prices,
        "cost_usd": report.cost_usd,
        "sources": [s.value for s in report.sources],
        "runs": len(rows),
        "passed": sum(1 for row in rows if row.verdict.value == "pass"),
        "cases": cases,
        # Means over the cases at the k every case reached, with intervals over cases;
        # shown only when that k is 2 or more (at 1, pass^k is the pass rate).
        "suite": None if suite is None else suite.to_json(),
        "columns": [column for column in CASE_COLUMNS if column not in dropped],
        "dropped": [{"column": column, "why": why} for column, why in dropped.items() if why],
        "mutants": [_mutants(summary) for summary in summarize_mutants(report.mutants)],
    }


def _empty_columns(cases: list[dict[str, Any]]) -> dict[str, str]:
    """The columns no case has anything in, each with why (shown as a note), or ""
    for a column whose absence says it all (no failure column: nothing failed)."""
    runs = [run for case in cases for run in case["rows"]]
    empty: dict[str, str] = {}
    if not any(case["steps"] for case in cases):
        empty["steps"] = "no run counted a step"
    if not any(case["tool_calls"] for case in cases):
        empty["tool_calls"] = "no run made a tool call"
    if not any(case["input_tokens"] or case["output_tokens"] for case in cases):
        empty["tokens"] = "no run counted a token"
    if all(case["cost_usd"] is None for case in cases):
        synthetic = all(case["synthetic"] for case in cases)
        empty["cost"] = "no run is priced (synthetic tokens)" if synthetic else "no run is priced"
    if not any(case["duration_s"] for case in cases):
        empty["duration"] = "no run's duration was recorded"
    if not any(case["failures"] for case in cases) and not any(run["judge"] for run in runs):
        empty["failure"] = ""
    if not any(run["traces"] or "index" in run["transcript"] for run in runs):
        first = next((run["transcript"].get("missing") for run in runs), None)
        empty["trace"] = "no run has a trace file or a transcript" + (f": {first}" if first else "")
    return empty


@dataclass(frozen=True)
class RunSources:
    """Where a report's runs are read from: trace files, transcripts, the report's path."""

    traces: TraceIndex
    transcripts: TranscriptIndex
    report: Path


def _case(runs: CaseRuns, sources: RunSources) -> dict[str, Any]:
    interval = runs.interval
    per_run = runs.cost_per_run()
    ordered = sorted(runs.rows, key=lambda row: (row.epoch or 0, row.nodeid))
    return {
        "case": runs.case,
        "provider": runs.provider,
        "role": runs.role,
        "models": list(runs.models),
        "sources": [s.value for s in runs.sources],
        "synthetic": runs.synthetic,
        "runs": runs.runs,
        "passes": runs.passes,
        "rate": runs.rate,
        "interval": [round(interval.low, 4), round(interval.high, 4)],
        # pass^k at k = the runs (every epoch passed), with its 95% interval.
        "pass_k": case_pass_k(runs.passes, runs.runs, runs.runs).to_json() if runs.runs else None,
        # One run: its verdict (pass / fail / error / skip) says more than "1/1".
        "verdict": ordered[0].verdict.value if len(ordered) == 1 else None,
        "recordings": runs.recordings,
        "steps": runs.mean("steps"),
        "tool_calls": runs.mean("tool_calls"),
        "input_tokens": runs.mean("input_tokens"),
        "output_tokens": runs.mean("output_tokens"),
        "cost_usd": None if per_run is None else per_run * runs.runs,
        "duration_s": runs.median_duration(),
        "failures": list(runs.failures),
        "rows": [run_data(row, sources) for row in ordered],
    }


def run_data(row: EvalRow, sources: RunSources) -> dict[str, Any]:
    """One run of a case for the page: verdict, message, trace links, transcript link, judge."""
    links = [sources.traces.link(path, TraceCase.of(row)) for path in row.traces]
    trees = [sources.traces.trees[link["path"]] for link in links if "index" in link]
    return {
        "nodeid": row.nodeid,
        # Counted from 1 on the page, as in the table and the test ids.
        "epoch": None if row.epoch is None else row.epoch + 1,
        "model": row.model,
        "verdict": row.verdict.value,
        "message": row.message,
        "duration_s": row.duration_s,
        "traces": links,
        "transcript": sources.transcripts.for_row(row, trees, sources.report),
        "judge": _judge(row),
    }


def _judge(row: EvalRow) -> dict[str, Any] | None:
    # Rows of case-file evals carry the judge's verdict, reason and tokens; read it
    # by name so that reports (and rows) without a judge show none.
    judge = getattr(row, "judge", None)
    return judge.model_dump(mode="json") if isinstance(judge, BaseModel) else None


def _mutants(summary: EvalMutants) -> dict[str, Any]:
    return {
        "eval": summary.eval_nodeid,
        "scenario": summary.scenario,
        "target": summary.target,
        "source": summary.source.value,
        "status": summary.status.value,
        "total": summary.total,
        "killed": summary.killed,
        "exhausted": summary.exhausted,
        "errors": len(summary.errors),
        "survivors": _survivors(summary.survivors),
    }


def _survivors(found: Iterable[MutantResult]) -> list[dict[str, str]]:
    return [
        {"mutant": m.mutant, "operator": m.operator, "description": m.description} for m in found
    ]
