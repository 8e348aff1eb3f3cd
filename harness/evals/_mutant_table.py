"""Rendering ``harness eval --mutants`` results: the per-eval kill table and survivors."""

from __future__ import annotations

from collections.abc import Iterable

from harness.evals._conversation_mutants import earlier_turn
from harness.evals._grid import grid_lines
from harness.evals._report import EvalReport
from harness.evals.mutant_results import (
    CONTROL,
    DEFAULT_MIN_KILL_RATE,
    EvalMutants,
    MutantOutcome,
    MutantResult,
    MutantStatus,
    mutation_score,
    summarize_mutants,
)
from harness.evals.request_mutants import is_request_operator
from harness.evals.tool_result_mutants import is_tool_result_operator

__all__ = ["MUTANT_LEGEND", "render_mutants", "request_line", "tool_result_line"]

MUTANT_LEGEND = (
    "killed: the eval failed an assertion; exhausted: killed after the run asked for more "
    "responses than the mutant held; error: the eval crashed instead of failing an assertion; "
    "inert: survived without the run asking for a response, so nothing it could observe "
    "changed (left out of the score); cannot fail: no mutant was killed; "
    "weak: fewer killed than the minimum kill rate; "
    "control failed: the eval fails on its unmutated "
    "responses served in order, so its kills prove nothing"
)
_HEADERS = (
    "scenario",
    "provider/model",
    "source",
    "mutants",
    "killed",
    "exhausted",
    "survived",
    "errors",
    "kill rate",
    "status",
)


def _cells(summary: EvalMutants) -> tuple[str, ...]:
    mutated = summary.status is not MutantStatus.NOT_MUTATED
    rate = f"{summary.kill_rate:.0%}" if mutated and summary.total else "-"
    status = summary.status.value
    return (
        summary.scenario,
        summary.target,
        summary.source.value,
        str(summary.total),
        str(summary.killed),
        str(summary.exhausted),
        str(len(summary.survivors)),
        str(len(summary.errors)),
        rate,
        status.upper() if summary.status is not MutantStatus.OK else status,
    )


def _details(summary: EvalMutants) -> list[str]:
    lines: list[str] = []
    if summary.status is MutantStatus.NOT_MUTATED and summary.control is not None:
        lines.append(f"  {summary.control.message}")
    if summary.status is MutantStatus.CONTROL_FAILED and summary.control is not None:
        first = summary.control.message.splitlines()[:1] or ["(no message)"]
        lines.append(f"  control failed: {first[0]}")
    if summary.killed and summary.killed == summary.exhausted:
        lines.append(
            f"  note: all {summary.killed} kill(s) came from running out of responses, "
            "none from an assertion on what the run did"
        )
    for result in summary.survivors:
        if result.inert:
            lines.append(
                f"  inert (not scored): {result.mutant} ({result.description}): the run "
                f"asked for none of its {result.available} response(s)"
            )
            continue
        why = f" [{result.message}]" if result.message else ""
        lines.append(f"  survived: {result.mutant} ({result.description}){why}")
    for result in summary.errors:
        first = result.message.splitlines()[:1] or ["(no message)"]
        lines.append(f"  error: {result.mutant} ({result.description}): {first[0]}")
    earlier = [r for r in summary.survivors if not r.inert and earlier_turn(r.description)]
    if earlier:
        lines.append(
            f"  note: {len(earlier)} survivor(s) changed an agent turn before the last: the "
            "eval reads only the last message of the conversation (check every turn: "
            "said_contains, said_not_contains, state, a trajectory, conversation_end)"
        )
    return lines


def request_line(results: Iterable[MutantResult]) -> str | None:
    """``request mutants: K/N killed`` (and why none was), None when none was served."""
    served = [r for r in results if r.mutant != CONTROL and is_request_operator(r.operator)]
    if not served:
        return None
    kills = (MutantOutcome.KILLED, MutantOutcome.EXHAUSTED)
    killed = sum(1 for r in served if r.outcome in kills)
    line = f"request mutants: {killed}/{len(served)} killed"
    if killed == 0:
        return (
            line + " — no check looks at what was sent (assert_requests, a case's request: block)"
        )
    missed = [r.mutant for r in served if r.outcome not in kills]
    return line + (f"; not killed: {', '.join(missed)}" if missed else "")


def tool_result_line(results: Iterable[MutantResult]) -> str | None:
    """``tool-result mutants: K/N killed`` (and which were not), None when none was served."""
    served = [r for r in results if r.mutant != CONTROL and is_tool_result_operator(r.operator)]
    if not served:
        return None
    kills = (MutantOutcome.KILLED, MutantOutcome.EXHAUSTED)
    killed = sum(1 for r in served if r.outcome in kills)
    line = f"tool-result mutants: {killed}/{len(served)} killed (counted in the kill rate)"
    if killed == 0:
        return line + " — no check looks at how the agent handles a failing or empty tool"
    missed = [r.mutant for r in served if r.outcome not in kills]
    return line + (f"; not killed: {', '.join(missed)}" if missed else "")


def render_mutants(report: EvalReport, min_kill_rate: float = DEFAULT_MIN_KILL_RATE) -> str:
    """One line per eval (kills, survivors, status), survivors listed under it."""
    summaries = summarize_mutants(report.mutants, min_kill_rate)
    if not summaries:
        return "no eval was mutated (is anything marked @pytest.mark.eval under the evals folder?)"
    rows = [_cells(s) for s in summaries]
    header, rule, *body = grid_lines(_HEADERS, rows)
    lines = [header, rule]
    for summary, line in zip(summaries, body, strict=True):
        lines.append(line)
        lines += _details(summary)
        if summary.status not in (MutantStatus.NOT_MUTATED, MutantStatus.CONTROL_FAILED):
            requested = request_line(summary.requests)
            lines += [f"  {requested}"] if requested is not None else []
            tooled = tool_result_line(summary.tools)
            lines += [f"  {tooled}"] if tooled is not None else []
    total = sum(s.total for s in summaries)
    killed = sum(s.killed for s in summaries)
    counts = {status: sum(1 for s in summaries if s.status is status) for status in MutantStatus}
    lines.append(
        f"{len(summaries)} eval(s), {total} mutant(s): {killed} killed "
        f"({sum(s.exhausted for s in summaries)} exhausted), "
        f"{sum(len(s.survivors) for s in summaries)} survived, "
        f"{sum(len(s.errors) for s in summaries)} error(s); "
        f"{counts[MutantStatus.WEAK]} weak (below {min_kill_rate:.0%} killed), "
        f"{counts[MutantStatus.CANNOT_FAIL]} cannot fail, "
        f"{counts[MutantStatus.CONTROL_FAILED]} control failed, "
        f"{counts[MutantStatus.NOT_MUTATED]} not mutated"
    )
    lines.append(mutation_score(summaries).render())
    skipped = (MutantStatus.CONTROL_FAILED, MutantStatus.NOT_MUTATED)
    suite = request_line(r for s in summaries if s.status not in skipped for r in s.requests)
    if suite is not None:
        lines.append(suite)
    tools = tool_result_line(r for s in summaries if s.status not in skipped for r in s.tools)
    if tools is not None:
        lines.append(tools)
    lines.append(MUTANT_LEGEND)
    return "\n".join(lines)
