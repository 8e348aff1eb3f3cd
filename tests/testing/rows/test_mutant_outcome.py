"""Mutant runs: which failures kill a mutant, and the options a mutant run refuses."""

from __future__ import annotations

from pathlib import Path

import pytest

import harness.engine._loop
import harness.tracing
from harness.core.errors import TraceAssertionError
from harness.testing.rows.mutant_outcome import raised_inside_runtime


def _raise_as_if_in(module_file: str, statement: str) -> pytest.ExceptionInfo[AssertionError]:
    code = compile(statement, module_file, "exec")
    with pytest.raises(AssertionError) as raised:
        exec(code, {"TraceAssertionError": TraceAssertionError})
    return raised


def test_a_bare_assert_inside_the_runtime_is_a_crash() -> None:
    raised = _raise_as_if_in(str(harness.engine._loop.__file__), "assert False, 'invariant'")
    assert raised_inside_runtime(raised)


def test_trace_assertions_and_the_evals_own_asserts_are_verdicts() -> None:
    tracing = str(Path(harness.tracing.__file__).parent / "tree.py")
    trace = _raise_as_if_in(tracing, "raise TraceAssertionError('no explore span')")
    assert not raised_inside_runtime(trace)
    assert not raised_inside_runtime(_raise_as_if_in(__file__, "assert 1 == 2"))


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--update-shapes",), "would write mutant traces as golden shapes"),
        (("--record-mode", "once"), "replays existing cassettes and records nothing"),
    ],
    ids=["update-shapes", "record-mode"],
)
def test_mutants_refuse_options_that_would_write(
    pytester: pytest.Pytester, extra: tuple[str, ...], message: str
) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    done = pytester.runpytest("--harness-mutants", *extra)
    assert done.ret == pytest.ExitCode.USAGE_ERROR
    assert message in done.stderr.str()
