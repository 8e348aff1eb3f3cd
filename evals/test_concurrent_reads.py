"""Concurrent reads eval: two reads in one model turn run in one step, answered in order.

The trace shows both ``tool.call read`` under one ``agent.step`` with call
indexes 0 and 1; the next request answers them in the model's call order, each
with its own file's sentinel; the answer holds both sentinels.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application
from harness.testing import RECORDED_PROVIDERS, LastTrace, Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "concurrent"
ALPHA = "SENTINEL-ALPHA-A41F0C93D7"
BETA = "SENTINEL-BETA-B82E6D10F5"
PROMPT = "Read alpha.txt and beta.txt together, in one turn, and tell me the marker in each."


@pytest.mark.eval("concurrent")
@pytest.mark.parametrize("provider_name", RECORDED_PROVIDERS)
def test_concurrent_reads(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
    evidence: Callable[[Application], Any],
) -> None:
    assert (
        ALPHA in (FIXTURE / "alpha.txt").read_text() and BETA in (FIXTURE / "beta.txt").read_text()
    )
    assert ALPHA not in PROMPT and BETA not in PROMPT
    workspace.copy_fixture("concurrent")
    app = make_harness_app(enabled_tools=("read",))
    result = app.run(PROMPT, session="eval-concurrent", max_steps=4)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"
    missing = [s for s in (ALPHA, BETA) if s not in result.text]
    assert not missing, f"verdict: the answer lacks {missing}: {result.text!r}"

    steps = trace.find_all(kind="agent.step")
    per_step = [
        [
            (s.name, s.attributes.get("tool_call_index"), s.attributes.get("status"))
            for s in step.children
            if s.kind == "tool.call"
        ]
        for step in steps
    ]
    assert per_step == [[("read", 0, "completed"), ("read", 1, "completed")], []], (
        f"verdict: the two reads did not run together in one step, in call order: {per_step}"
    )
    together = {
        (s.attributes.get("parallel_group"), s.attributes.get("parallel_size"))
        for s in trace.find_all(kind="tool.call", name="read")
    }
    assert together == {(0, 2)}, (
        f"verdict: the executor did not run the two reads as one parallel group: {together}"
    )
    seen = evidence(app)
    paths = [c.arguments.get("path") for c in seen.calls()]
    assert paths == ["alpha.txt", "beta.txt"], f"verdict: the model called read on {paths}"
    checked = seen.assert_observations_in_call_order({"alpha.txt": ALPHA, "beta.txt": BETA})
    assert checked == 2, "verdict: the reads were not answered together"
    assert (result.steps, result.tool_calls) == (2, 2), (
        f"verdict: {result.steps} steps and {result.tool_calls} tool calls, expected 2 and 2"
    )
    seen.assert_metadata_trace(result, (ALPHA, BETA, PROMPT))
    assert_trace_golden(trace)
