"""The verdicts of a case: each check reads behaviour (files, answer, trace), never the cassette.

``check_case`` returns every failed check as a readable line, so one run shows
all that went wrong; the eval asserts the list is empty. Tool counts come from
the traces' ``tool.call`` spans whose status is ``completed`` (the tool ran; its
result may still be an error, counted apart by ``tools_failed``): a call that was
denied, rejected or paused did not run, whatever the model asked for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from harness.core import ToolCall
from harness.core.errors import TraceAssertionError
from harness.engine import RunResult
from harness.evals.cases import CallSpec, Case, CaseChecks, FileCheck, ObservationCheck
from harness.tracing import TraceTree

__all__ = [
    "CaseRun",
    "ShapeCheck",
    "answer_failures",
    "check_case",
    "check_files",
    "completed_tool_calls",
]

ShapeCheck = Callable[[TraceTree, str], None]


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


def completed_tool_calls(traces: Sequence[TraceTree], *, errors_only: bool = False) -> Counter[str]:
    """How many times each tool actually ran (``tool.call`` spans with status completed);
    with ``errors_only``, only the runs whose result was an error."""
    counts: Counter[str] = Counter()
    for tree in traces:
        for span in tree.walk():
            if span.kind != "tool.call" or span.attributes.get("status") != "completed":
                continue
            if not errors_only or span.attributes.get("is_error") is True:
                counts[span.name] += 1
    return counts


def _file_failures(check: FileCheck, workdir: Path) -> list[str]:
    path = workdir / check.path
    if not check.exists:
        return [f"files: {check.path} exists, but must not"] if path.exists() else []
    if not path.is_file():
        return [f"files: {check.path} does not exist"]
    text = path.read_bytes().decode("utf-8", errors="replace")
    failures: list[str] = []
    if check.equals is not None and text != check.equals:
        failures.append(f"files: {check.path} holds {text[:400]!r}, expected {check.equals!r}")
    if check.ends_with is not None and not text.endswith(check.ends_with):
        failures.append(
            f"files: {check.path} does not end with {check.ends_with!r}: {text[-200:]!r}"
        )
    missing = [s for s in check.contains if s not in text]
    if missing:
        failures.append(f"files: {check.path} lacks {missing}")
    present = [s for s in check.not_contains if s in text]
    if present:
        failures.append(f"files: {check.path} still holds {present}")
    return failures


def check_files(checks: Sequence[FileCheck], workdir: Path) -> list[str]:
    """Failures of the file checks against ``workdir``."""
    return [line for check in checks for line in _file_failures(check, workdir)]


def answer_failures(checks: CaseChecks, answer: str) -> list[str]:
    failures: list[str] = []
    missing = [s for s in checks.answer_contains if s not in answer]
    if missing:
        failures.append(f"answer: lacks {missing}; it said {answer[:400]!r}")
    present = [s for s in checks.answer_not_contains if s in answer]
    if present:
        failures.append(f"answer: must not say {present}; it said {answer[:400]!r}")
    return failures


def _tool_failures(checks: CaseChecks, traces: Sequence[TraceTree]) -> list[str]:
    ran = completed_tool_calls(traces)
    failures: list[str] = []
    for name, count in sorted(checks.tools_called.items()):
        if ran[name] != count:
            failures.append(f"tools_called: {name} ran {ran[name]} time(s), expected {count}")
    failed = completed_tool_calls(traces, errors_only=True)
    for name in sorted(set(failed) | set(checks.tools_failed)):
        expected = checks.tools_failed.get(name, 0)
        if failed[name] != expected:
            failures.append(
                f"tools_failed: {name} failed {failed[name]} time(s), expected {expected}"
            )
    for name in checks.tools_not_called:
        if ran[name]:
            failures.append(f"tools_not_called: {name} ran {ran[name]} time(s)")
    return failures


def _matches(spec: CallSpec, call: ToolCall) -> bool:
    return call.name == spec.name and all(
        call.arguments.get(key) == value for key, value in spec.arguments.items()
    )


def _call_failures(specs: Sequence[CallSpec], calls: Sequence[ToolCall]) -> list[str]:
    made = [f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})" for c in calls]
    if len(specs) == len(calls) and all(map(_matches, specs, calls)):
        return []
    return [
        f"calls: the model called {made}, expected {[spec.label() for spec in specs]}"
        if len(made) < 8
        else f"calls: the model made {len(made)} calls, not the {len(specs)} expected: {made}"
    ]


def _observation_failures(
    checks: Sequence[ObservationCheck], calls: Sequence[ToolCall], shown: Mapping[str, str]
) -> list[str]:
    failures: list[str] = []
    for check in checks:
        found = next(
            (
                c
                for c in calls
                if c.name == check.tool
                and (check.path is None or c.arguments.get("path") == check.path)
            ),
            None,
        )
        target = check.tool + (f" {check.path}" if check.path else "")
        if found is None:
            failures.append(f"observations: the model never called {target}")
            continue
        text = shown.get(found.id)
        missing = [s for s in check.contains if text is None or s not in text]
        if missing:
            failures.append(
                f"observations: the result of {target} lacks {missing}: {(text or '')[:300]!r}"
            )
    return failures


def _outline_failures(
    outline: str, traces: Sequence[TraceTree], assert_shape: ShapeCheck
) -> list[str]:
    if not traces:
        return ["trace_outline: the run wrote no trace"]
    try:
        assert_shape(traces[-1], outline)
    except (AssertionError, TraceAssertionError) as exc:
        return [f"trace_outline: {exc}"]
    return []


def check_case(case: Case, run: CaseRun, *, assert_shape: ShapeCheck) -> list[str]:
    """Every failed check of ``case`` on ``run`` (the judge is checked by the caller).

    ``assert_shape(tree, outline)`` raises AssertionError when the last trace does
    not hold the outline (the plugin passes ``assert_trace_shape(..., match="subset")``;
    the evals package does not import the testing toolkit that sits on top of it).
    """
    checks = case.checks
    final = run.final
    failures: list[str] = []
    if final.stop_reason != checks.stop_reason:
        failures.append(
            f"stop_reason: {final.stop_reason}, expected {checks.stop_reason} "
            f"(error: {final.error})"
        )
    if checks.steps is not None and final.steps != checks.steps:
        failures.append(f"steps: {final.steps}, expected {checks.steps}")
    failures += check_files(checks.files, run.workdir)
    failures += answer_failures(checks, final.text or "")
    failures += _tool_failures(checks, run.traces)
    if checks.calls is not None:
        failures += _call_failures(checks.calls, run.calls)
    failures += _observation_failures(checks.observations, run.calls, run.shown)
    if checks.trace_outline is not None:
        failures += _outline_failures(checks.trace_outline, run.traces, assert_shape)
    return failures
