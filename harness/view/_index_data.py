"""A folder of eval reports as the index page's script reads it: the runs newest
first (each with its whole date and time), a case x run matrix of verdicts with
each case's pass rate, the files of the folder that were skipped and why, and
the page's layout: the matrix only when there are runs to compare, a column or
filter only when it tells the cases apart.

Rows are grouped per case as ``harness eval compare`` groups them (case,
provider, model role, test), epochs folded into passes / runs. A case fails
when any run of it failed; failed cases come first, worst pass rate first.
Cells are compact arrays (``[passes, runs, verdict]``, then the index of the
run's own failure reason in ``reasons`` when it has one) because a page of a
hundred reports by a hundred cases holds ten thousand of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from harness.evals import EvalReport
from harness.evals.aggregate import CaseKey, CaseRuns, aggregate_rows
from harness.view._report_folder import RunTime, SkippedFile, run_time

__all__ = ["index_data"]

_NEVER = datetime.min.replace(tzinfo=UTC)


def index_data(
    reports: Sequence[tuple[EvalReport, str]], skipped: Sequence[SkippedFile] = ()
) -> dict[str, Any]:
    """Return the JSON-able index of ``reports`` (``(report, where it was read from)``);
    ``skipped``: the folder's files that are not readable reports, noted on the page."""
    timed = [(report, source, run_time(report, Path(source))) for report, source in reports]
    # By the moment of the run, not its text: zones and precisions differ between reports.
    timed.sort(key=lambda item: (item[2].at if item[2] else _NEVER, item[1]), reverse=True)
    ordered = [(report, source) for report, source, _ in timed]
    runs = [_run(report, source, when) for report, source, when in timed]
    grouped = [aggregate_rows(report.rows) for report, _ in ordered]
    keys: dict[CaseKey, None] = {}
    for groups in grouped:
        keys.update(dict.fromkeys(groups))
    reasons: dict[str, int] = {}
    cases = [_case(key, [groups.get(key) for groups in grouped], reasons) for key in keys]
    cases.sort(
        key=lambda c: (not c["failed"], c["rate"] if c["rate"] is not None else 2, c["case"])
    )
    providers = sorted({c["provider"] for c in cases})
    sources = sorted({s for c in cases for s in c["sources"]})
    return {
        "runs": runs,
        "cases": cases,
        "providers": providers,
        "sources": sources,
        "reasons": list(reasons),
        "skipped": [
            {"name": file.path.name, "path": str(file.path), "problem": file.problem}
            for file in skipped
        ],
        "layout": _layout(runs, cases, providers, sources),
    }


def _layout(
    runs: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    providers: list[str],
    sources: list[str],
) -> dict[str, Any]:
    """What the page shows: a panel, column or filter with nothing to tell apart is left out.

    One run makes no matrix (one cell per case): the cases are a plain list. One
    provider makes no provider column or filter (the subtitle names it).
    """
    filters = [
        name for name, values in (("provider", providers), ("source", sources)) if len(values) > 1
    ]
    # Even when every case failed once, "failed in the newest run" tells them apart.
    if any(c["failed"] for c in cases):
        filters.append("verdict")
    return {
        "matrix": len(runs) > 1,
        "provider_column": len(providers) > 1,
        "reason_column": any(c["reason"] for c in cases),
        "cost_column": any(run["cost_usd"] is not None for run in runs),
        "filters": filters,
    }


def _run(report: EvalReport, source: str, when: RunTime | None) -> dict[str, Any]:
    rows = report.rows
    verdicts = [row.verdict.value for row in rows]
    return {
        "source": source,
        "name": Path(source).name,
        "created_at": report.created_at,
        # The whole date and time, zone named: a matrix header once cut it to "2026-12".
        "when": when.whole if when else "date not recorded",
        "sources": [s.value for s in report.sources],
        "providers": sorted({row.provider for row in rows}),
        "rows": len(rows),
        "passed": verdicts.count("pass"),
        "failed": verdicts.count("fail") + verdicts.count("error"),
        "cost_usd": report.cost_usd,
        "record_mode": report.record_mode,
    }


def _cell(runs: CaseRuns | None, reasons: dict[str, int]) -> list[Any] | None:
    if runs is None:
        return None
    verdicts = {row.verdict.value for row in runs.rows}
    verdict = verdicts.pop() if len(verdicts) == 1 else "mixed"
    cell: list[Any] = [runs.passes, runs.runs, verdict]
    # This run's own reason (not the case's newest), each text stored once per page.
    failure = "\n".join(dict.fromkeys(runs.failures))
    if failure:
        cell.append(reasons.setdefault(failure, len(reasons)))
    return cell


def _case(key: CaseKey, per_run: list[CaseRuns | None], reasons: dict[str, int]) -> dict[str, Any]:
    present = [runs for runs in per_run if runs is not None]
    passes = sum(runs.passes for runs in present)
    total = sum(runs.runs for runs in present)
    # The newest failure's reason (runs are newest first): what a reader fixes now.
    reason = next(
        (failure for runs in present for failure in runs.failures if failure),
        "",
    )
    sources = sorted({s.value for runs in present for s in runs.sources})
    cells = [_cell(runs, reasons) for runs in per_run]
    latest = next(cell for cell in cells if cell is not None)
    return {
        "case": key[0],
        "provider": key[1],
        "role": key[2],
        "test": key[3],
        "models": sorted({m for runs in present for m in runs.models}),
        "sources": sources,
        "passes": passes,
        "runs": total,
        "rate": passes / total if total else None,
        "failed": any(
            row.verdict.value in ("fail", "error") for runs in present for row in runs.rows
        ),
        "latest": latest[2],
        "reason": reason,
        "cells": cells,
    }
