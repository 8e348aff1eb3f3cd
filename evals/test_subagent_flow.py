"""Subagent eval: only a child's reads can find the sentinels; the parent sees only explore."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from harness.app import Application
from harness.core import Role
from harness.testing.runlog import LastTrace
from harness.testing.workspace import Workspace

README_SENTINEL = "SENTINEL-README-ORBIT-4417"
ARCH_SENTINEL = "SENTINEL-ARCH-QUEUE-2093"
PROMPT = (
    "Use the explore tool to find the release marker in README.md and the architecture "
    "marker in notes/architecture.txt, then tell me both markers exactly."
)


@pytest.mark.eval("subagent")
@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_subagent_flow(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
) -> None:
    workspace.copy_fixture("subagent")
    app = make_harness_app(enabled_tools=("explore",))
    result = app.run(PROMPT, session="eval-subagent", max_steps=4)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"
    missing = [s for s in (README_SENTINEL, ARCH_SENTINEL) if s not in result.text]
    assert not missing, f"verdict: the final answer lacks {missing}: {result.text!r}"

    explore = trace.one(kind="tool.call", name="explore")
    child_reads = [s for s in explore.children[0].children if s.kind == "tool.call"]
    assert child_reads and all(s.name == "read" for s in child_reads)
    parent_tools = {s.name for s in trace.find_all(kind="tool.call") if s not in child_reads}
    assert parent_tools == {"explore"}, f"verdict: the parent called {parent_tools}"
    child_ids = {s.attributes["tool_call_id"] for s in child_reads}
    _assert_parent_context_is_clean(app, explore.attributes["tool_call_id"], child_ids)
    assert_trace_golden(trace)


def _assert_parent_context_is_clean(
    app: Application, explore_call_id: str, child_ids: set[str]
) -> None:
    """The parent's memory and requests hold the report, never child traffic."""
    memory = app.memory.load("eval-subagent")
    assert [e.role for e in memory] == ["user", "assistant"]
    observation = _parent_observation(app, explore_call_id)
    assert observation.startswith("[Explorer Subagent Report]"), (
        "verdict: the parent did not receive an Explorer report"
    )
    parent_requests = [
        r
        for r in getattr(app.provider.inner, "requests", [])
        if "explore" in {t.name for t in r.tools}
    ]
    sent = "\n".join(m.model_dump_json() for r in parent_requests for m in r.messages)
    leaked = sorted(i for i in child_ids if i in sent)
    assert not leaked, f"verdict: child tool-call ids reached the parent context: {leaked}"
    assert "Architecture notes" not in sent, "verdict: raw child file text reached the parent"


def _parent_observation(app: Application, call_id: str) -> str:
    requests = getattr(app.provider.inner, "requests", [])
    for request in reversed(requests):
        if "explore" not in {tool.name for tool in request.tools}:
            continue  # a child request
        for message in request.messages:
            if message.role is Role.TOOL and message.tool_call_id == call_id:
                return message.content
    raise AssertionError("verdict: no observation answered the explore call")
