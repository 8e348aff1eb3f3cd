"""The verdicts of a case: each check reads behaviour (files, answer, trace), never the cassette.

``run_checks`` returns every failed check as a readable line, so one run shows
all that went wrong; the eval asserts the list is empty. The checks are the
registered ones (:mod:`harness.evals.check`): harness's own
(:mod:`harness.evals.builtin_checks`) and yours.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import ToolCall
from harness.engine import RunResult
from harness.evals.builtin_checks import check_files, completed_tool_calls
from harness.evals.cases import Case, CaseChecks
from harness.evals.check import CheckContext, ShapeCheck
from harness.tracing import TraceTree

__all__ = [
    "CaseRun",
    "ShapeCheck",
    "check_case",
    "check_files",
    "completed_tool_calls",
    "run_checks",
]


@dataclass(frozen=True, slots=True)
class CaseRun:
    """What a case's run produced: every result in order (paused, then resumed) and traces."""

    results: tuple[RunResult, ...]
    traces: tuple[TraceTree, ...]
    workdir: Path
    # The model's side, from the request log: its calls in order, and the text
    # each call's result showed it (by call id).
    calls: tuple[ToolCall, ...] = ()
    shown: Mapping[str, str] = field(default_factory=dict)

    @property
    def final(self) -> RunResult:
        return self.results[-1]

    def evidence(self, *, assert_shape: ShapeCheck | None = None) -> CheckContext:
        """What the checks may read of this run (no trajectory matcher, no judge)."""
        return CheckContext(
            answer=self.final.text or "",
            workdir=self.workdir,
            results=self.results,
            traces=self.traces,
            calls=self.calls,
            shown=self.shown,
            assert_shape=assert_shape,
        )


def run_checks(checks: CaseChecks, evidence: CheckContext) -> list[str]:
    """Every failure of the checks whose evidence ``evidence`` holds, in table order."""
    available = evidence.available()
    return [
        line
        for check, config in checks.asked()
        if check.reads <= available
        for line in check.run(config, evidence)
    ]


def check_case(case: Case, run: CaseRun, *, assert_shape: ShapeCheck) -> list[str]:
    """Every failed check of ``case`` on ``run`` that reads only the run (the judge,
    the trajectory and a conversation's checks are the caller's: they need more).

    ``assert_shape(tree, outline)`` raises AssertionError when the last trace does
    not hold the outline (the plugin passes ``assert_trace_shape(..., match="subset")``;
    the evals package does not import the testing toolkit that sits on top of it).
    """
    return run_checks(case.checks, run.evidence(assert_shape=assert_shape))
