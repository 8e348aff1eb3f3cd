"""Which exceptions a mutant run counts as the agent failing (a kill) and which as errors.

A framework that raises when a mutant breaks its run (smolagents'
``AgentGenerationError``) failed the eval; harness's own errors, anything
raised inside harness and the test's own crashes stay errors.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import smolagents.agents

import harness.engine._loop
from harness.core.errors import CassetteError
from harness.evals.mutants import MutantExhaustedError
from harness.testing.rows.mutant_outcome import phase_end

FRAMEWORK = str(smolagents.agents.__file__)
WRAPPED = "try:\n    raise {0}('inner')\nexcept {0} as e:\n    raise RuntimeError('outer') from e"


def _raised(filename: str, statement: str, **names: object) -> pytest.ExceptionInfo[BaseException]:
    code = compile(statement, filename, "exec")
    with pytest.raises(BaseException) as raised:
        exec(code, dict(names))
    return raised


def test_an_exception_the_framework_raises_is_the_agent_failing() -> None:
    raised = _raised(FRAMEWORK, "raise RuntimeError('no answer')")
    assert phase_end(raised, Path(__file__)) == ("raised", "RuntimeError: no answer")


def test_exhaustion_the_framework_wrapped_is_exhausted() -> None:
    raised = _raised(FRAMEWORK, WRAPPED.format("Exhausted"), Exhausted=MutantExhaustedError)
    assert phase_end(raised, Path(__file__))[0] == "exhausted"


@pytest.mark.parametrize(
    ("filename", "statement"),
    [
        (FRAMEWORK, WRAPPED.format("Miss")),
        (str(harness.engine._loop.__file__), "raise RuntimeError('harness runtime')"),
        (__file__, "raise IndexError('the eval itself')"),
    ],
    ids=["harness-error-in-chain", "raised-inside-harness", "the-test-s-own-code"],
)
def test_harness_s_and_the_eval_s_own_failures_stay_crashes(filename: str, statement: str) -> None:
    raised = _raised(filename, statement, Miss=CassetteError)
    assert phase_end(raised, Path(__file__))[0] == "crash"
