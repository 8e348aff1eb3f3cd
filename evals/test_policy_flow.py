"""Policy eval: a denylisted tool is refused before it runs, and the model says so.

The model reads a sentinel from notes.txt and tries to ``write`` it to copy.txt;
``write`` is on the denylist. The verdict: copy.txt never exists, the write's
span is denied (``tool_denied``), the model was told it was denied, and the
answer reports the denial together with the sentinel it could only read.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application
from harness.core import Role
from harness.testing import RECORDED_PROVIDERS, LastTrace, Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "policy"
SENTINEL = "SENTINEL-POLICY-3B8D27E6A1"
PROMPT = (
    "Read notes.txt, then use the write tool to copy its marker into copy.txt. "
    "If a tool is refused, say so and tell me the marker."
)


@pytest.mark.eval("policy")
@pytest.mark.parametrize("provider_name", RECORDED_PROVIDERS)
def test_policy_flow(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
    evidence: Callable[[Application], Any],
) -> None:
    assert SENTINEL in (FIXTURE / "notes.txt").read_text() and SENTINEL not in PROMPT
    workspace.copy_fixture("policy")
    app = make_harness_app(enabled_tools=("read", "write"), tool_denylist=("write",))
    result = app.run(PROMPT, session="eval-policy", max_steps=5)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"
    assert not workspace.exists("copy.txt"), "verdict: the denied write ran: copy.txt exists"

    write = trace.one(kind="tool.call", name="write")
    facts = {k: write.attributes.get(k) for k in ("status", "denied", "error_type")}
    assert facts == {"status": "denied", "denied": True, "error_type": "tool_denied"}, (
        f"verdict: the write was not denied by policy: {facts}"
    )
    seen = evidence(app)
    (call,) = [c for c in seen.calls() if c.name == "write"]
    assert call.arguments.get("content", "").strip() == SENTINEL, (
        "verdict: the model did not try to write the marker it read"
    )
    told = [
        m.content
        for r in seen.requests
        for m in r.messages
        if m.role is Role.TOOL and m.tool_call_id == call.id
    ]
    assert told and "denied by policy" in told[-1], (
        f"verdict: the model was not told the write was denied: {told}"
    )
    assert SENTINEL in result.text and "denied" in result.text.lower(), (
        f"verdict: the answer does not report the denial and the marker: {result.text!r}"
    )
    assert (result.steps, result.tool_calls) == (3, 2), (
        f"verdict: {result.steps} steps and {result.tool_calls} tool calls, expected 3 "
        "(read, denied write, answer) and 2"
    )
    seen.assert_read_saw("notes.txt", SENTINEL)
    seen.assert_metadata_trace(result, (SENTINEL, PROMPT))
    assert_trace_golden(trace)
