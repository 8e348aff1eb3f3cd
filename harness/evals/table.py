"""Rendering an eval report as a table, with pass rates when epochs repeat."""

from __future__ import annotations

from collections import defaultdict

from harness.evals.aggregate import render_rate
from harness.evals.cost import render_cost
from harness.evals.grid import grid_lines
from harness.evals.report import EvalReport, EvalRow, Verdict

__all__ = ["SYNTHETIC_FOOTNOTE", "render_pass_rates", "render_table"]

SYNTHETIC_FOOTNOTE = "* synthetic tokens (simulator or scripted): no real model counted them"
_HEADERS = (
    "scenario",
    "provider/model",
    "source",
    "verdict",
    "steps",
    "llm",
    "tools",
    "tokens in/out",
    "duration",
    "shape",
)


def _cells(row: EvalRow) -> tuple[str, ...]:
    shape = {True: "match", False: "DIFF", None: "-"}[row.shape_ok]
    mark = "*" if row.tokens_synthetic else ""
    return (
        row.scenario,
        f"{row.provider}/{row.model}",
        row.source.value,
        row.verdict.value.upper() if row.verdict is not Verdict.PASS else "pass",
        str(row.steps),
        str(row.llm_calls),
        str(row.tool_calls),
        f"{row.input_tokens}/{row.output_tokens}{mark}",
        f"{row.duration_s:.2f}s",
        shape,
    )


def render_table(report: EvalReport) -> str:
    """A fixed-width table of every row, then a one-line total."""
    lines = grid_lines(_HEADERS, [_cells(row) for row in report.rows])
    counts: defaultdict[Verdict, int] = defaultdict(int)
    for row in report.rows:
        counts[row.verdict] += 1
    summary = ", ".join(f"{counts[v]} {v.value}" for v in Verdict if counts[v])
    lines.append(f"{len(report.rows)} eval run(s): {summary or 'none'}")
    lines.append(_cost_line(report))
    if any(row.tokens_synthetic for row in report.rows):
        lines.append(SYNTHETIC_FOOTNOTE)
    return "\n".join(lines)


def _cost_line(report: EvalReport) -> str:
    synthetic = sum(1 for row in report.rows if row.tokens_synthetic)
    unpriced = sum(1 for row in report.rows if row.cost_usd is None and not row.tokens_synthetic)
    why = [
        *([f"{synthetic} synthetic row(s), not priced"] if synthetic else []),
        *([f"{unpriced} row(s) without a price"] if unpriced else []),
    ]
    total = report.cost_usd
    if total is None:
        return f"cost: – ({'; '.join(why) or 'no rows'})"
    rest = f"; {'; '.join(why)}" if why else ""
    return f"cost: {render_cost(total)} at {report.prices or 'an unknown price table'}{rest}"


def render_pass_rates(report: EvalReport) -> str:
    """Pass rate per scenario and provider/model, for repeated (``--epochs``) runs."""
    groups: dict[tuple[str, str], list[EvalRow]] = defaultdict(list)
    for row in report.rows:
        groups[(row.scenario, f"{row.provider}/{row.model}")].append(row)
    lines = ["pass rate per scenario (passes/runs, rate, Wilson 95% interval):"]
    shared = False
    for (scenario, target), rows in sorted(groups.items()):
        counted = [r for r in rows if r.verdict is not Verdict.SKIP]
        passed = sum(1 for r in counted if r.verdict is Verdict.PASS)
        recordings = {r.cassette for r in rows if r.cassette is not None}
        # N replays of one recording are one answer N times, not N samples of the model.
        mark = "†" if recordings and len(recordings) < len(rows) else ""
        shared = shared or bool(mark)
        lines.append(f"  {scenario:30s} {target:40s} {render_rate(passed, len(counted))}{mark}")
    if shared:
        lines.append("  † epochs replayed a shared recording: record each epoch for a real rate")
    return "\n".join(lines)
