"""Rendering an eval report as a table, with pass rates when epochs repeat."""

from __future__ import annotations

import re
from collections import defaultdict

from harness.evals._cost import render_cost
from harness.evals._grid import grid_lines
from harness.evals._report import EvalReport, EvalRow, Verdict
from harness.evals.aggregate import render_rate
from harness.evals.reliability import case_pass_k, suite_pass_k

__all__ = ["SYNTHETIC_FOOTNOTE", "epoch_of", "render_pass_rates", "render_table"]

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


# Rows of reports older than schema 3 carry no epoch; their ids did: test_x[epoch0-...].
_EPOCH = re.compile(r"[\[-]epoch(\d+)[\]-]")
_REASON_CHARS = 60


def epoch_of(row: EvalRow) -> int | None:
    """The 1-based repetition of ``row`` (``--epochs``), or None when not repeated."""
    if row.epoch is not None:
        return row.epoch + 1  # stored as an index from 0
    found = _EPOCH.search(row.nodeid)
    return int(found.group(1)) + 1 if found else None


def _reason(row: EvalRow) -> str:
    if row.verdict is Verdict.PASS:
        return ""
    first = next((line.strip() for line in row.message.splitlines() if line.strip()), "")
    if not first:
        return "(no message)"
    return first if len(first) <= _REASON_CHARS else first[: _REASON_CHARS - 1] + "…"


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
    """A fixed-width table of every row, then a one-line total.

    An ``epoch`` column appears when rows repeat (``--epochs``), and a ``reason``
    column (the first line of the failure) when any row did not pass.
    """
    rows = report.rows
    with_epoch = any(epoch_of(row) is not None for row in rows)
    with_reason = any(row.verdict is not Verdict.PASS for row in rows)
    headers = (*_HEADERS[:1], *(("epoch",) if with_epoch else ()), *_HEADERS[1:])
    headers = (*headers, *(("reason",) if with_reason else ()))
    cells = []
    for row in rows:
        base = _cells(row)
        epoch = epoch_of(row)
        extra_epoch = ((str(epoch) if epoch is not None else "-"),) if with_epoch else ()
        cells.append(
            (*base[:1], *extra_epoch, *base[1:], *((_reason(row),) if with_reason else ()))
        )
    lines = grid_lines(headers, cells)
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
    unpriced = sum(
        1 for row in report.rows if row.cost_usd is None and not row.tokens_synthetic and row.tokens
    )
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
    """Pass rate per scenario and provider/model, for repeated (``--epochs``) runs.

    Beside the rate (pass@1), pass^k at k = the case's runs: whether every epoch
    passed, the reliability a user of the agent meets (τ-bench), with its 95%
    interval. The last line averages pass@1 and pass^k over the cases at the k
    every case reached, with Wilson 95% intervals over the cases
    (``harness.evals.reliability`` says why cases, not runs).
    """
    groups: dict[tuple[str, str], list[EvalRow]] = defaultdict(list)
    for row in report.rows:
        groups[(row.scenario, f"{row.provider}/{row.model}")].append(row)
    lines = [
        "pass rate per scenario (passes/runs, pass@1, Wilson 95% interval; pass^k, its interval):"
    ]
    shared = False
    counts: list[tuple[int, int]] = []
    for (scenario, target), rows in sorted(groups.items()):
        counted = [r for r in rows if r.verdict is not Verdict.SKIP]
        passed = sum(1 for r in counted if r.verdict is Verdict.PASS)
        recordings = {r.cassette for r in rows if r.cassette is not None}
        # N replays of one recording are one answer N times, not N samples of the model.
        mark = "†" if recordings and len(recordings) < len(rows) else ""
        shared = shared or bool(mark)
        runs = len(counted)
        reliable = f" {case_pass_k(passed, runs, runs).render()}" if runs else ""
        counts.append((passed, runs))
        lines.append(f"  {scenario:30s} {target:40s} {render_rate(passed, runs)}{mark}{reliable}")
    suite = suite_pass_k(counts)
    if suite is not None:
        lines.append(
            f"  {suite.render()} (pass^k: the chance that k runs of a case all pass; "
            "intervals over the cases)"
        )
    if shared:
        lines.append("  † epochs replayed a shared recording: record each epoch for a real rate")
    return "\n".join(lines)
