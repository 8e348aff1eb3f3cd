"""Edit eval: the agent reads greeting.py and edits it; the file on disk is the verdict."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from harness.app import Application
from harness.testing.workspace import Workspace

PROMPT = (
    "In greeting.py, change greet() so that it returns an f-string: "
    'f"Hello, {name}!". Read the file first, then edit it.'
)


@pytest.mark.eval("edit")
@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_edit_flow(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    harness_options: object,
    assert_trace_golden: Callable[..., None],
    trace: object,
) -> None:
    workspace.copy_fixture("edit")
    app = make_harness_app(enabled_tools=("read", "edit"))
    result = app.run(PROMPT, session="eval-edit", max_steps=6)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"
    expected = (Path(__file__).parents[1] / "fixtures" / "edit_expected_greeting.py").read_bytes()
    actual = workspace.path("greeting.py").read_bytes()
    assert actual == expected, (
        "verdict: greeting.py does not hold the expected bytes after the run\n"
        f"--- got ---\n{actual.decode(errors='replace')}"
    )
    assert_trace_golden(trace)
