"""Max-steps eval: a chain of files longer than the step budget stops at the budget.

Each file names the next one; the model can only learn step2.txt and step3.txt
by reading. With ``max_steps=3`` the run must stop with ``max_steps`` after
exactly three steps, three reads (step1, step2, step3, each answered with its
own sentinel), and never read step4.txt.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application
from harness.testing import RECORDED_PROVIDERS, LastTrace, Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "maxsteps"
CHAIN = {
    f"step{n}.txt": f"SENTINEL-CHAIN-{n}-{tail}"
    for n, tail in ((1, "6E0D93A2"), (2, "C17B48F5"), (3, "94F2AE06"), (4, "2BD05C7E"))
}
PROMPT = (
    "Follow the chain of files that starts at step1.txt: each file names the next one. "
    "Read them one at a time and tell me the marker in the last file."
)
MAX_STEPS = 3


@pytest.mark.eval("max_steps")
@pytest.mark.parametrize("provider_name", RECORDED_PROVIDERS)
def test_max_steps(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
    evidence: Callable[[Application], Any],
) -> None:
    for name, sentinel in CHAIN.items():
        assert sentinel in (FIXTURE / name).read_text() and sentinel not in PROMPT
    workspace.copy_fixture("maxsteps")
    app = make_harness_app(enabled_tools=("read",))
    result = app.run(PROMPT, session="eval-max-steps", max_steps=MAX_STEPS)
    assert result.stop_reason == "max_steps", (
        f"verdict: the run stopped with {result.stop_reason} after {result.steps} steps, "
        f"expected max_steps after {MAX_STEPS}"
    )
    assert (result.steps, result.tool_calls) == (MAX_STEPS, MAX_STEPS), (
        f"verdict: {result.steps} steps and {result.tool_calls} tool calls, "
        f"expected {MAX_STEPS} and {MAX_STEPS}"
    )
    steps = trace.find_all(kind="agent.step")
    per_step = [[s.name for s in step.children if s.kind == "tool.call"] for step in steps]
    assert per_step == [["read"]] * MAX_STEPS, f"verdict: the steps called {per_step}"
    llm = trace.find_all(kind="llm.call")
    assert len(llm) == MAX_STEPS, f"verdict: {len(llm)} model calls, expected {MAX_STEPS}"

    seen = evidence(app)
    paths = [c.arguments.get("path") for c in seen.calls()]
    assert paths == ["step1.txt", "step2.txt", "step3.txt"], (
        f"verdict: the model read {paths}, expected the first three links of the chain"
    )
    # The last read's answer is never sent (the budget ends the run), so it is
    # checked in the trace; the first two reached the model with their own sentinel.
    for call in seen.calls()[:-1]:
        (told,) = seen.observations((call,))
        expected = CHAIN[str(call.arguments["path"])]
        assert expected in told.content, (
            f"verdict: read({call.arguments}) did not return {expected}"
        )
    statuses = [s.attributes.get("status") for s in trace.find_all(kind="tool.call")]
    assert statuses == ["completed"] * MAX_STEPS, f"verdict: the reads ended {statuses}"
    assert CHAIN["step4.txt"] not in result.text, "verdict: the run went past its budget"
    seen.assert_metadata_trace(result, (*list(CHAIN.values())[:3], PROMPT))
    assert_trace_golden(trace)
