"""Edit eval: greet() must return a greeting that exists only in greeting.txt.

The prompt never holds the greeting (a sentinel); the model can only learn it
by reading greeting.txt, and only a real edit of greeting.py puts it there. The
verdict is the file on disk (exactly one line changed, the function returns the
sentinel), the reads and the edit in the trace, and the exact steps it takes.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application
from harness.testing import RECORDED_PROVIDERS, LastTrace, Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "edit"
SENTINEL = (FIXTURE / "greeting.txt").read_text("utf-8").strip()
PROMPT = (
    "Make greet() in greeting.py return the greeting stored in greeting.txt, as a plain "
    "string literal. Read both files first, then edit greeting.py; change only the "
    "return line."
)
OLD_LINE = '    return "Hello, " + name'


@pytest.mark.eval("edit")
@pytest.mark.parametrize("provider_name", RECORDED_PROVIDERS)
def test_edit_flow(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
    evidence: Callable[[Application], Any],
) -> None:
    assert SENTINEL.startswith("SENTINEL-") and SENTINEL not in PROMPT
    workspace.copy_fixture("edit")
    original = workspace.read("greeting.py")
    app = make_harness_app(enabled_tools=("read", "edit"))
    result = app.run(PROMPT, session="eval-edit", max_steps=6)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"

    final = workspace.read("greeting.py")
    changed = [
        line
        for line in difflib.unified_diff(
            original.splitlines(), final.splitlines(), lineterm="", n=0
        )
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    assert changed == [f"-{OLD_LINE}", f'+    return "{SENTINEL}"'], (
        "verdict: greeting.py is not the original with only greet()'s return line changed "
        f"to the greeting from greeting.txt; changed lines: {changed}\n--- got ---\n{final}"
    )
    # Safe to run: the diff above proved the file is the fixture plus one return line.
    namespace: dict[str, Any] = {}
    exec(compile(final, "greeting.py", "exec"), namespace)
    assert namespace["greet"]("world") == SENTINEL, "verdict: greet() does not return it"
    assert workspace.read("greeting.txt").strip() == SENTINEL, "verdict: greeting.txt changed"

    # Behaviour: read both files (one turn), one edit, one answer: 3 steps, 3 calls.
    steps = trace.find_all(kind="agent.step")
    per_step = [[s.name for s in step.children if s.kind == "tool.call"] for step in steps]
    assert per_step == [["read", "read"], ["edit"], []], (
        f"verdict: expected reads, then one edit, then the answer; the steps called {per_step}"
    )
    edit = trace.one(kind="tool.call", name="edit")
    assert edit.status == "ok" and edit.attributes.get("status") == "completed", (
        f"verdict: the edit did not complete: {dict(edit.attributes)}"
    )
    assert (result.steps, result.tool_calls) == (3, 3), (
        f"verdict: {result.steps} steps and {result.tool_calls} tool calls, expected 3 and 3"
    )
    seen = evidence(app)
    (call,) = [c for c in seen.calls() if c.name == "edit"]
    if original.count(str(call.arguments.get("old_text"))) == 1:  # strict matching first
        assert edit.attributes.get("stage") == "exact", (
            f"verdict: old_text occurs verbatim, yet the edit matched at stage "
            f"{edit.attributes.get('stage')!r}"
        )
    reads = [c.arguments.get("path") for c in seen.calls() if c.name == "read"]
    assert sorted(reads) == ["greeting.py", "greeting.txt"], f"verdict: the model read {reads}"
    checked = seen.assert_observations_in_call_order(
        {"greeting.txt": SENTINEL, "greeting.py": "def greet(name):"}
    )
    assert checked == 2, "verdict: the two reads were not answered together"
    seen.assert_read_saw("greeting.txt", SENTINEL)
    assert SENTINEL in result.text, (
        f"verdict: the answer does not say what greet() now returns: {result.text!r}"
    )
    seen.assert_metadata_trace(result, (SENTINEL, PROMPT, OLD_LINE))
    assert_trace_golden(trace)
