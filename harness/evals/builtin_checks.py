"""harness's own checks, one table: each key of a case's ``checks:`` and what it reads.

The order of :data:`BUILTIN_CHECKS` is the order of a failed case's lines. Tool
counts come from the traces' ``tool.call`` spans whose status is ``completed``
(the tool ran; its result may still be an error, counted apart by
``tools_failed``): a call that was denied, rejected or paused did not run,
whatever the model asked for. The conversation checks read every agent turn,
where ``answer_contains`` reads only the agent's last message; the goal is the
state file after the conversation, as τ-bench judges it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from harness.conversations import state_failures
from harness.core import ToolCall
from harness.core.errors import TraceAssertionError
from harness.evals.check import CheckContext
from harness.evals.check_configs import (
    CallSpec,
    ConversationEnd,
    FileCheck,
    JudgeSpec,
    ObservationCheck,
    StateCheck,
    StopReasonName,
    TrajectorySpec,
)
from harness.tracing import TraceTree

__all__ = [
    "BUILTIN_CHECKS",
    "BuiltinCheck",
    "check_files",
    "completed_tool_calls",
    "goal_failures",
]

_SHOWN = 300


@dataclass(frozen=True, slots=True)
class BuiltinCheck:
    """A check that is a function of its config and the evidence.

    ``can_fail`` is ``bool(config)`` unless given: an empty list, an empty
    mapping or a missing block asks for nothing.
    """

    key: str
    config: Any
    reads: frozenset[str]
    fails: Callable[[Any, CheckContext], list[str]]
    fails_when: Callable[[Any], bool] = bool

    def can_fail(self, config: Any) -> bool:
        return self.fails_when(config)

    def run(self, config: Any, evidence: CheckContext) -> list[str]:
        return self.fails(config, evidence)


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


def _stop_reason(expected: str, ctx: CheckContext) -> list[str]:
    assert ctx.results is not None
    final = ctx.results[-1]
    if final.stop_reason == expected:
        return []
    return [f"stop_reason: {final.stop_reason}, expected {expected} (error: {final.error})"]


def _steps(expected: int | None, ctx: CheckContext) -> list[str]:
    assert ctx.results is not None
    final = ctx.results[-1]
    if expected is None or final.steps == expected:
        return []
    return [f"steps: {final.steps}, expected {expected}"]


def _answer_contains(words: Sequence[str], ctx: CheckContext) -> list[str]:
    missing = [s for s in words if s not in ctx.answer]
    return [f"answer: lacks {missing}; it said {ctx.answer[:400]!r}"] if missing else []


def _answer_not_contains(words: Sequence[str], ctx: CheckContext) -> list[str]:
    present = [s for s in words if s in ctx.answer]
    return [f"answer: must not say {present}; it said {ctx.answer[:400]!r}"] if present else []


def _tools_called(expected: Mapping[str, int], ctx: CheckContext) -> list[str]:
    assert ctx.traces is not None
    ran = completed_tool_calls(ctx.traces)
    return [
        f"tools_called: {name} ran {ran[name]} time(s), expected {count}"
        for name, count in sorted(expected.items())
        if ran[name] != count
    ]


def _tools_failed(expected: Mapping[str, int], ctx: CheckContext) -> list[str]:
    # Runs with an empty mapping too: a tool not listed must not fail.
    assert ctx.traces is not None
    failed = completed_tool_calls(ctx.traces, errors_only=True)
    return [
        f"tools_failed: {name} failed {failed[name]} time(s), expected {expected.get(name, 0)}"
        for name in sorted(set(failed) | set(expected))
        if failed[name] != expected.get(name, 0)
    ]


def _tools_not_called(names: Sequence[str], ctx: CheckContext) -> list[str]:
    assert ctx.traces is not None
    ran = completed_tool_calls(ctx.traces)
    return [f"tools_not_called: {name} ran {ran[name]} time(s)" for name in names if ran[name]]


def _matches(spec: CallSpec, call: ToolCall) -> bool:
    return call.name == spec.name and all(
        call.arguments.get(key) == value for key, value in spec.arguments.items()
    )


def _calls(specs: Sequence[CallSpec] | None, ctx: CheckContext) -> list[str]:
    assert ctx.calls is not None
    calls = ctx.calls
    if specs is None or (len(specs) == len(calls) and all(map(_matches, specs, calls))):
        return []
    made = [f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})" for c in calls]
    return [
        f"calls: the model called {made}, expected {[spec.label() for spec in specs]}"
        if len(made) < 8
        else f"calls: the model made {len(made)} calls, not the {len(specs)} expected: {made}"
    ]


def _observations(checks: Sequence[ObservationCheck], ctx: CheckContext) -> list[str]:
    assert ctx.calls is not None and ctx.shown is not None
    failures: list[str] = []
    for check in checks:
        found = next(
            (
                c
                for c in ctx.calls
                if c.name == check.tool
                and (check.path is None or c.arguments.get("path") == check.path)
            ),
            None,
        )
        target = check.tool + (f" {check.path}" if check.path else "")
        if found is None:
            failures.append(f"observations: the model never called {target}")
            continue
        text = ctx.shown.get(found.id)
        missing = [s for s in check.contains if text is None or s not in text]
        if missing:
            failures.append(
                f"observations: the result of {target} lacks {missing}: {(text or '')[:300]!r}"
            )
    return failures


def _trace_outline(outline: str | None, ctx: CheckContext) -> list[str]:
    assert ctx.traces is not None
    if outline is None:
        return []
    if not ctx.traces:
        return ["trace_outline: the run wrote no trace"]
    if ctx.assert_shape is None:
        return ["trace_outline: no outline matcher was given to check it with"]
    try:
        ctx.assert_shape(ctx.traces[-1], outline)
    except (AssertionError, TraceAssertionError) as exc:
        return [f"trace_outline: {exc}"]
    return []


def _trajectory(spec: TrajectorySpec | None, ctx: CheckContext) -> list[str]:
    assert ctx.trajectory is not None
    if spec is None:
        return []
    failure = ctx.trajectory(spec)
    return [] if failure is None else [f"trajectory: {failure}"]


def _said_contains(words: Sequence[str], ctx: CheckContext) -> list[str]:
    assert ctx.conversation is not None
    said = ctx.conversation.said()
    return [
        f"said_contains: no agent turn says {word!r}"
        for word in words
        if not any(word in text for text in said)
    ]


def _said_not_contains(words: Sequence[str], ctx: CheckContext) -> list[str]:
    assert ctx.conversation is not None
    said = ctx.conversation.said()
    failures: list[str] = []
    for word in words:
        turns = [number for number, text in enumerate(said, 1) if word in text]
        if turns:
            failures.append(
                f"said_not_contains: agent turn(s) {turns} say {word!r}: "
                f"{said[turns[0] - 1][:_SHOWN]!r}"
            )
    return failures


def goal_failures(check: StateCheck, workdir: Path) -> list[str]:
    """How the state file misses the goal (empty: the goal is reached)."""
    path = workdir / check.path
    if check.subset is not None:
        return state_failures(path, check.subset, subset=True)
    return state_failures(path, check.equals)


def _state(check: StateCheck | None, ctx: CheckContext) -> list[str]:
    return [] if check is None else goal_failures(check, ctx.workdir)


def _max_turns(limit: int | None, ctx: CheckContext) -> list[str]:
    assert ctx.conversation is not None
    turns = ctx.conversation.turns
    if limit is None or turns <= limit:
        return []
    return [f"max_turns: the conversation took {turns} user turns, at most {limit} allowed"]


def _conversation_end(expected: str | None, ctx: CheckContext) -> list[str]:
    assert ctx.conversation is not None
    ended = ctx.conversation.stop_reason
    if expected is None or ended == expected:
        return []
    return [f"conversation_end: it ended by {ended}, expected {expected}"]


def _judge(spec: JudgeSpec | None, ctx: CheckContext) -> list[str]:
    # The runner grades the run (it holds the provider); these are its lines.
    assert ctx.judge is not None
    return [] if spec is None else list(ctx.judge)


def _reads(*names: str) -> frozenset[str]:
    return frozenset(names)


_Count = dict[str, int]
_Words = tuple[str, ...]
_Positive = Annotated[int, Field(ge=1)]

BUILTIN_CHECKS: tuple[BuiltinCheck, ...] = (
    # A stop reason other than "final" asks for something; "final" is every case's default.
    BuiltinCheck("stop_reason", StopReasonName, _reads("results"), _stop_reason, "final".__ne__),
    BuiltinCheck("steps", _Positive | None, _reads("results"), _steps),
    BuiltinCheck(
        "files", tuple[FileCheck, ...], _reads("workdir"), lambda c, x: check_files(c, x.workdir)
    ),
    BuiltinCheck("answer_contains", _Words, _reads("answer"), _answer_contains),
    BuiltinCheck("answer_not_contains", _Words, _reads("answer"), _answer_not_contains),
    BuiltinCheck("tools_called", _Count, _reads("traces"), _tools_called),
    BuiltinCheck("tools_failed", _Count, _reads("traces"), _tools_failed),
    BuiltinCheck("tools_not_called", _Words, _reads("traces"), _tools_not_called),
    # An empty list asks that the model made no call: it can fail.
    BuiltinCheck(
        "calls", tuple[CallSpec, ...] | None, _reads("calls"), _calls, lambda c: c is not None
    ),
    BuiltinCheck(
        "observations", tuple[ObservationCheck, ...], _reads("calls", "shown"), _observations
    ),
    BuiltinCheck("trace_outline", str | None, _reads("traces"), _trace_outline),
    BuiltinCheck("trajectory", TrajectorySpec | None, _reads("trajectory"), _trajectory),
    BuiltinCheck("said_contains", _Words, _reads("conversation"), _said_contains),
    BuiltinCheck("said_not_contains", _Words, _reads("conversation"), _said_not_contains),
    BuiltinCheck("state", StateCheck | None, _reads("conversation", "workdir"), _state),
    # Bounded by user.stop.max_turns, the conversation's own stop, it may never
    # fail: a case needs another check beside it.
    BuiltinCheck(
        "max_turns", _Positive | None, _reads("conversation"), _max_turns, lambda c: False
    ),
    BuiltinCheck(
        "conversation_end", ConversationEnd | None, _reads("conversation"), _conversation_end
    ),
    BuiltinCheck("judge", JudgeSpec | None, _reads("judge"), _judge),
)
