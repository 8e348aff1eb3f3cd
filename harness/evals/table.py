"""Rendering an eval report as a table, with pass rates when epochs repeat."""

from __future__ import annotations

from collections import defaultdict

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
    if any(row.tokens_synthetic for row in report.rows):
        lines.append(SYNTHETIC_FOOTNOTE)
    return "\n".join(lines)


def render_pass_rates(report: EvalReport) -> str:
    """Pass rate per scenario and provider/model, for repeated (``--epochs``) runs."""
    groups: dict[tuple[str, str], list[EvalRow]] = defaultdict(list)
    for row in report.rows:
        groups[(row.scenario, f"{row.provider}/{row.model}")].append(row)
    lines = ["pass rate per scenario:"]
    for (scenario, target), rows in sorted(groups.items()):
        passed = sum(1 for r in rows if r.verdict is Verdict.PASS)
        lines.append(
            f"  {scenario:30s} {target:40s} {passed}/{len(rows)} ({passed / len(rows):.0%})"
        )
    return "\n".join(lines)
