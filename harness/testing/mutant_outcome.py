"""How a mutant item ended: killed, exhausted, survived or error (and the control).

The phases of each mutant item are noted as they finish; at teardown they are
classified and the ``MutantResult`` is attached to the report's
``user_properties``, which pytest-xdist ships to the controller.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.evals.mutant_results import CONTROL, MutantOutcome, MutantResult
from harness.evals.provenance import Source
from harness.testing.collector import MUTANT_PROPERTY
from harness.testing.mutant_mode import (
    PHASES_KEY,
    STATE_KEY,
    base_nodeid,
    cassette_for,
    mutant_id,
)
from harness.testing.naming import scenario_name
from harness.testing.options import HarnessOptions

__all__ = ["classify", "note_phase", "raised_inside_runtime", "result_property"]


def note_phase(item: pytest.Item, when: str, call: pytest.CallInfo[None]) -> None:
    """Remember how a phase of a mutant item ended: ``(kind, message)``."""
    phases = item.stash.setdefault(PHASES_KEY, {})
    excinfo = call.excinfo
    if excinfo is None:
        phases[when] = ("passed", "")
        return
    from harness.evals.mutants import MutantExhaustedError

    value = excinfo.value
    if isinstance(value, pytest.skip.Exception):
        kind = "skipped"
    elif isinstance(value, MutantExhaustedError):
        kind = "exhausted"
    elif isinstance(value, pytest.fail.Exception):
        kind = "assertion"
    elif isinstance(value, AssertionError):
        kind = "crash" if raised_inside_runtime(excinfo) else "assertion"
    else:
        kind = "crash"
    message = excinfo.exconly() if kind == "crash" else str(value)
    phases[when] = (kind, _first_lines(message))


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
    if kind == "assertion":
        return MutantOutcome.KILLED, message
    return MutantOutcome.ERROR, message


def _target(item: pytest.Item, options: HarnessOptions) -> tuple[str, str, Path] | None:
    """``(provider, model, cassette)`` of a mutant item; None when scripted."""
    if "llm_cassette" not in getattr(item, "fixturenames", ()):
        return cassette_for(item, options)
    from harness.core.errors import HarnessError
    from harness.testing.http_mutants import cassette_api, llm_target

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
    from harness.testing.http_mutants import cassette_api

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
