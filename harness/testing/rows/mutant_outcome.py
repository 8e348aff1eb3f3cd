"""How a mutant item ended: killed, exhausted, survived or error (and the control).

A run that failed after its tools sent traffic the cassette never recorded
(``harness.testing.cassettes.tool_traffic``) is ``exhausted``, not an error: the mutant
moved the agent off the recording, however the failure surfaced.

A run the agent's framework ended by raising failed as surely as an assertion:
it is ``killed``, or ``exhausted`` when the exception was raised from (or while
handling) a ``MutantExhaustedError``, as smolagents' ``AgentGenerationError``
wraps the one a mutant that dropped ``final_answer`` leads to. An
error stays what harness or the eval itself is to blame for: a ``HarnessError``
anywhere in the exception's chain (a cassette miss wrapped by the SDK), an
exception raised inside harness, or one raised by the test's own code.

The phases of each mutant item are noted as they finish; at teardown they are
classified and the ``MutantResult`` is attached to the report's
``user_properties``, which pytest-xdist ships to the controller.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from harness.evals.mutant_results import CONTROL, MutantOutcome, MutantResult
from harness.evals.provenance import Source
from harness.testing.naming import scenario_name
from harness.testing.options import HarnessOptions
from harness.testing.row_properties import MUTANT_PROPERTY
from harness.testing.rows.mutant_mode import (
    PHASES_KEY,
    STATE_KEY,
    base_nodeid,
    cassette_for,
    mutant_id,
)

__all__ = [
    "brief_kill_report",
    "classify",
    "note_phase",
    "phase_end",
    "raised_by_agent",
    "raised_inside_runtime",
    "result_property",
]


def note_phase(item: pytest.Item, when: str, call: pytest.CallInfo[None]) -> None:
    """Remember how a phase of a mutant item ended: ``(kind, message)``."""
    phases = item.stash.setdefault(PHASES_KEY, {})
    excinfo = call.excinfo
    phases[when] = ("passed", "") if excinfo is None else phase_end(excinfo, Path(item.path))


def phase_end(
    excinfo: pytest.ExceptionInfo[BaseException], test_file: Path | None = None
) -> tuple[str, str]:
    """``(kind, message)`` of a phase that raised: skipped, exhausted, assertion, raised
    (the agent under test raised: see ``raised_by_agent``) or crash."""
    from harness.evals.mutants import MutantExhaustedError

    value = excinfo.value
    if isinstance(value, pytest.skip.Exception):
        kind = "skipped"
    elif any(isinstance(cause, MutantExhaustedError) for cause in _chain(value)):
        kind = "exhausted"  # also when the agent's SDK or framework wrapped it
    elif isinstance(value, pytest.fail.Exception):
        kind = "assertion"
    elif isinstance(value, AssertionError):
        kind = "crash" if raised_inside_runtime(excinfo) else "assertion"
    elif (
        isinstance(value, Exception)
        and test_file is not None
        and raised_by_agent(excinfo, test_file)
    ):
        kind = "raised"
    else:
        kind = "crash"
    message = excinfo.exconly() if kind in ("crash", "raised") else str(value)
    return kind, _first_lines(message)


@contextmanager
def brief_kill_report(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """While pytest makes the report of a mutant the eval killed, its failure is the reason.

    The full report of a failed call (the traceback with each frame's source)
    cost a quarter of a mutant run, and nothing reads it: the kill is told by
    its reason (the first lines of the assertion), and the report becomes an
    xfail. Crashes, failed controls and anything outside the call keep the whole
    traceback; the item is as before once the report is made.
    """
    mid = mutant_id(item)
    excinfo = call.excinfo
    killed = (
        mid is not None
        and mid != CONTROL
        and call.when == "call"
        and excinfo is not None
        and phase_end(excinfo, Path(item.path))[0] in ("assertion", "exhausted", "raised")
    )
    if not killed or excinfo is None:
        yield
        return
    line = f"mutant {mid} killed: {phase_end(excinfo, Path(item.path))[1]}"
    item.repr_failure = lambda excinfo, style=None: line  # type: ignore[method-assign]
    try:
        yield
    finally:
        del item.repr_failure


def raised_inside_runtime(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    """A bare ``assert`` of harness's own runtime failed: a crash, not the eval's verdict.

    ``TraceAssertionError`` (trace queries and shapes) and the testing toolkit's
    assertions are the eval's own, wherever in harness they are raised.
    """
    import harness
    from harness.core.errors import TraceAssertionError

    if isinstance(excinfo.value, TraceAssertionError):
        return False
    package = Path(harness.__file__).parent
    innermost = Path(str(excinfo.traceback[-1].path))
    inside = innermost.is_relative_to(package)
    return inside and not innermost.is_relative_to(package / "testing")


def raised_by_agent(excinfo: pytest.ExceptionInfo[BaseException], test_file: Path) -> bool:
    """The agent under test (its framework, its own code) raised: the mutant broke the run.

    Not when the exception, or any it was raised from or during, is a
    ``HarnessError`` or was raised inside harness (a cassette miss that the SDK
    wrapped, harness's own runtime), nor when it was raised by the test's own
    code (``test_file``): those are errors, the eval's or harness's fault.
    """
    import harness
    from harness.core.errors import HarnessError

    package = Path(harness.__file__).parent
    if not excinfo.traceback or Path(str(excinfo.traceback[-1].path)) == test_file:
        return False
    for current in _chain(excinfo.value):
        if isinstance(current, HarnessError):
            return False
        frame = current.__traceback__
        while frame is not None and frame.tb_next is not None:
            frame = frame.tb_next
        if frame is not None and Path(frame.tb_frame.f_code.co_filename).is_relative_to(package):
            return False
    return True


def _chain(value: BaseException) -> list[BaseException]:
    """``value`` and the exceptions it was raised from or while handling, outermost first."""
    chain: list[BaseException] = []
    current: BaseException | None = value
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _first_lines(text: str, limit: int = 400) -> str:
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()][:4]
    joined = "\n".join(lines)
    return joined if len(joined) <= limit else joined[: limit - 3] + "..."


def classify(item: pytest.Item) -> tuple[MutantOutcome, str]:
    """The outcome of a finished mutant (or control) item, from its phases."""
    phases = item.stash.get(PHASES_KEY, {})
    state = item.stash.get(STATE_KEY, None)
    exhausted = bool(state is not None and state.provider.exhausted)
    setup = phases.get("setup", ("crash", "no setup phase"))
    call = phases.get("call")
    teardown = phases.get("teardown", ("passed", ""))
    control = mutant_id(item) == CONTROL
    if setup[0] == "skipped":
        return MutantOutcome.NOT_MUTATED, setup[1]
    if setup[0] != "passed" or call is None:
        return MutantOutcome.ERROR, f"setup failed: {setup[1]}"
    kind, message = call
    if kind == "passed" and teardown[0] != "passed":
        kind, message = "crash", f"teardown failed: {teardown[1]}"
    if control:
        return (MutantOutcome.PASS, "") if kind == "passed" else (MutantOutcome.FAIL, message)
    if kind == "passed":
        unasked = state is not None and state.provider.served == 0
        return MutantOutcome.SURVIVED, (
            "the eval never asked the provider fixture for a response" if unasked else ""
        )
    if kind == "exhausted" or (kind == "assertion" and exhausted):
        return MutantOutcome.EXHAUSTED, message
    left = _left_tool_recording(item)
    if left is not None:
        # The mutant made the agent's tools call what was never recorded: the run left
        # the recording (as an exhausted one does), however the failure surfaced.
        return MutantOutcome.EXHAUSTED, f"{left}; the eval then failed: {message}"
    if kind == "raised" and exhausted:
        return MutantOutcome.EXHAUSTED, message
    if kind in ("assertion", "raised"):
        return MutantOutcome.KILLED, message
    return MutantOutcome.ERROR, message


def _left_tool_recording(item: pytest.Item) -> str | None:
    """What tool traffic of the run had no recording (``cassettes.tool_traffic``)."""
    from harness.testing.cassettes.tool_traffic import TOOL_REPLAY_KEY

    replay = item.stash.get(TOOL_REPLAY_KEY, None)
    if replay is None or not replay.missed:
        return None
    return f"tool traffic beyond the recording ({', '.join(dict.fromkeys(replay.missed))})"


def _target(item: pytest.Item, options: HarnessOptions) -> tuple[str, str, Path] | None:
    """``(provider, model, cassette)`` of a mutant item; None when scripted."""
    if "llm_cassette" not in getattr(item, "fixturenames", ()):
        return cassette_for(item, options)
    from harness.core.errors import HarnessError
    from harness.testing.rows.http_mutants import cassette_api, llm_target

    path = llm_target(item, options)
    try:
        api = cassette_api(path)
    except HarnessError:
        api = "unknown"
    return api, _recorded_model(path), path


def _recorded_model(path: Path) -> str:
    """The model the recorded responses name (the control's first that names one)."""
    from harness.core.errors import HarnessError
    from harness.evals.mutants import cassette_mutants
    from harness.testing.rows.http_mutants import cassette_api

    try:
        control = cassette_mutants(path, cassette_api(path))[0]
    except HarnessError:
        return "unknown"
    models = (getattr(response, "model", None) for response in control.responses)
    return next((str(model) for model in models if model), "unknown")


def result_property(item: pytest.Item, options: HarnessOptions) -> tuple[str, str]:
    """The ``user_properties`` entry that carries this item's ``MutantResult``."""
    outcome, message = classify(item)
    state = item.stash.get(STATE_KEY, None)
    target = _target(item, options)
    provider, model = (target[0], target[1]) if target else ("scripted", "scripted")
    if state is not None:
        source = state.source
    else:
        source = Source.SCRIPTED if target is None else Source.UNKNOWN
    mid = mutant_id(item) or CONTROL
    result = MutantResult(
        eval_nodeid=base_nodeid(item),
        scenario=scenario_name(item),
        provider=provider,
        model=model,
        source=source,
        mutant=mid,
        operator=state.operator if state else mid.partition(".")[0],
        order=state.order if state else 0,
        description=state.description if state else "",
        outcome=outcome,
        message=message,
        served=state.provider.served if state else 0,
        available=state.provider.available if state else 0,
    )
    return MUTANT_PROPERTY, result.model_dump_json()
