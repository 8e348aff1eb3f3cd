"""Two eval reports compared, as the compare page's script reads it.

The verdicts are the gate's (``harness.evals._compare``), so the page and
``harness eval compare`` never disagree; this module only orders them gravest
first, lines up changed trace outlines for a side-by-side view, and lists each
side's runs (verdict, final answer, links to the trace and the transcript).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from harness.evals import Change, EvalReport, GateSettings, Status, compare_reports
from harness.evals.aggregate import CaseRuns
from harness.evals.reliability import SuitePassKDrop
from harness.view._report_data import RunSources, TraceIndex, run_data
from harness.view._run_transcripts import TranscriptIndex

__all__ = ["compare_data", "side_by_side"]

# Gravest first: what a reader must see before anything else.
_ORDER = {status: position for position, status in enumerate(Status)}


def compare_data(
    old: EvalReport,
    new: EvalReport,
    *,
    old_source: str,
    new_source: str,
    settings: GateSettings | None = None,
    traces: TraceIndex | None = None,
    transcripts: TranscriptIndex | None = None,
) -> dict[str, Any]:
    """Return the JSON-able comparison of ``old`` and ``new`` for the page.

    ``traces`` and ``transcripts`` are where the runs' traces and transcripts are
    read into (new ones by default; the page embeds them).
    """
    traces = traces if traces is not None else TraceIndex()
    transcripts = transcripts if transcripts is not None else TranscriptIndex()
    sides = (
        RunSources(traces, transcripts, Path(old_source)),
        RunSources(traces, transcripts, Path(new_source)),
    )
    comparison = compare_reports(old, new, settings)
    changes = sorted(comparison.changes, key=lambda c: (_ORDER[c.status], c.key))
    counts = {status.value: len(comparison.with_status(status)) for status in Status}
    gate = comparison.settings
    return {
        "old": _report(old, old_source, comparison.old_cost),
        "new": _report(new, new_source, comparison.new_cost),
        "old_sources": [s.value for s in comparison.old_sources],
        "new_sources": [s.value for s in comparison.new_sources],
        "sources_differ": comparison.sources_differ,
        "settings": {"alpha": gate.alpha, "max_drop": gate.max_drop},
        "counts": counts,
        "changes": [_change(change, sides) for change in changes],
        # The suite's pass^k over the cases both ran (None: no epochs on both sides):
        # a fall beyond its interval fails the gate as a case's regression does.
        "suite_pass_k": _suite_pass_k(comparison.suite_pass_k),
    }


def _suite_pass_k(found: SuitePassKDrop | None) -> dict[str, Any] | None:
    return None if found is None else {**found.to_json(), "reason": found.reason}


def _report(report: EvalReport, source: str, cost: float | None) -> dict[str, Any]:
    return {"source": source, "created_at": report.created_at, "cost_usd": cost}


def _change(change: Change, sides: Sequence[RunSources]) -> dict[str, Any]:
    data = change.to_json()
    data["old_runs"] = _runs(change.old, sides[0])
    data["new_runs"] = _runs(change.new, sides[1])
    old_shape = "\n\n".join(change.old.shapes) if change.old is not None else ""
    new_shape = "\n\n".join(change.new.shapes) if change.new is not None else ""
    shape_changed = bool(change.old and change.new and change.old.shapes != change.new.shapes)
    data["shape"] = side_by_side(old_shape, new_shape) if shape_changed else None
    return data


def _runs(runs: CaseRuns | None, sources: RunSources) -> list[dict[str, Any]]:
    """A side's runs, epochs in order, each with its final answer where a transcript has one."""
    if runs is None:
        return []
    shown = []
    for row in sorted(runs.rows, key=lambda row: (row.epoch or 0, row.nodeid)):
        run = run_data(row, sources)
        link = run["transcript"]
        entries = (
            sources.transcripts.transcripts[link["index"]]["entries"] if "index" in link else []
        )
        finals = [entry["text"] for entry in entries if entry["t"] == "final"]
        run["answer"] = finals[-1] if finals else None
        shown.append(run)
    return shown


def side_by_side(old: str, new: str) -> list[dict[str, Any]]:
    """The two outlines as aligned line pairs: ``{"op", "old", "new"}``, where ``op``
    is ``equal``, ``delete`` (old only), ``insert`` (new only) or ``replace``; a
    side with no line there is None."""
    before, after = old.splitlines(), new.splitlines()
    pairs: list[dict[str, Any]] = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        left, right = before[i1:i2], after[j1:j2]
        for position in range(max(len(left), len(right))):
            old_line = left[position] if position < len(left) else None
            new_line = right[position] if position < len(right) else None
            kind = op
            if op == "replace":  # a longer side's extra lines are plain deletes / inserts
                kind = (
                    "replace"
                    if old_line is not None and new_line is not None
                    else ("delete" if new_line is None else "insert")
                )
            pairs.append({"op": kind, "old": old_line, "new": new_line})
    return pairs
