"""Subagent eval: only a child's reads can find the sentinels; the parent sees only explore.

Asserted directly, from the trace, the session store and the requests the model
received: the parent is offered only ``explore`` and the child exactly ``read``;
the child runs in its own session with its own memory; the child's reads come
back in call order; the report the parent gets is capped at 4,000 characters
(the inventory's tail sentinels lie past the cap and must never reach the
parent); and the run takes exactly the steps and calls the task needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application
from harness.core import Role
from harness.testing import RECORDED_PROVIDERS, LastTrace, Workspace

FIXTURE = Path(__file__).parents[1] / "fixtures" / "subagent"
README_SENTINEL = "SENTINEL-README-ORBIT-4417"
ARCH_SENTINEL = "SENTINEL-ARCH-QUEUE-2093"
INVENTORY = re.findall(r"SENTINEL-INV-[0-9A-F-]+", (FIXTURE / "notes/inventory.txt").read_text())
TAIL_SENTINEL = INVENTORY[-1]
REPORT_CAP = 4000
SESSION = "eval-subagent"
PROMPT = (
    "Use the explore tool to find the release marker in README.md, the architecture "
    "marker in notes/architecture.txt and the shard markers in notes/inventory.txt, "
    "then tell me every marker exactly."
)


@pytest.mark.eval("subagent")
@pytest.mark.parametrize("provider_name", RECORDED_PROVIDERS)
def test_subagent_flow(
    workspace: Workspace,
    make_harness_app: Callable[..., Application],
    assert_trace_golden: Callable[..., None],
    trace: LastTrace,
    evidence: Callable[[Application], Any],
    llm_calls_of: Callable[..., list[Any]],
) -> None:
    sentinels = (README_SENTINEL, ARCH_SENTINEL, *INVENTORY)
    assert len(INVENTORY) == 250 and not [s for s in sentinels if s in PROMPT]
    workspace.copy_fixture("subagent")
    app = make_harness_app(enabled_tools=("explore",))
    result = app.run(PROMPT, session=SESSION, max_steps=4)
    assert result.stop_reason == "final", f"run stopped with {result.stop_reason}: {result.error}"
    missing = [s for s in (README_SENTINEL, ARCH_SENTINEL, INVENTORY[0]) if s not in result.text]
    assert not missing, f"verdict: the final answer lacks {missing}: {result.text[:300]!r}"

    # Tool visibility, from the llm.call spans and from the requests themselves.
    parent_offers = [
        s.attributes.get("visible_tools") for s in llm_calls_of(trace.root, inside_subagent=False)
    ]
    child_offers = [
        s.attributes.get("visible_tools") for s in llm_calls_of(trace.root, inside_subagent=True)
    ]
    assert parent_offers == [["explore"], ["explore"]], (
        f"verdict: the parent's llm calls were offered {parent_offers}, expected only explore"
    )
    assert child_offers == [["read"], ["read"]], (
        f"verdict: the child's llm calls were offered {child_offers}, expected exactly read"
    )
    seen = evidence(app)
    assert sorted(map(tuple, seen.offered_tools())) == [("explore",)] * 2 + [("read",)] * 2, (
        f"verdict: the model was offered {seen.offered_tools()}"
    )

    # Calls: the parent explores once; the child reads the three files in one turn.
    explore = trace.one(kind="tool.call", name="explore")
    child_run = trace.one(kind="subagent.run")
    child_calls = [s.name for s in child_run.children if s.kind == "tool.call"]
    parent_calls = [
        s.name for s in trace.find_all(kind="tool.call") if s.parent_id != child_run.span_id
    ]
    assert child_calls == ["read", "read", "read"] and parent_calls == ["explore"], (
        f"verdict: the child called {child_calls}, the parent {parent_calls}"
    )
    assert (result.steps, result.tool_calls) == (2, 1), (
        f"verdict: the parent took {result.steps} steps and {result.tool_calls} tool calls, "
        "expected 2 and 1"
    )
    checked = seen.assert_observations_in_call_order(
        {
            "README.md": README_SENTINEL,
            "notes/architecture.txt": ARCH_SENTINEL,
            "notes/inventory.txt": TAIL_SENTINEL,
        }
    )
    assert checked == 3, f"verdict: {checked} child observations were checked, expected 3"

    _assert_child_session(app, explore.attributes.get("child_session"))
    report = _parent_observation(seen, explore.attributes["tool_call_id"])
    (asked,) = [c.arguments.get("max_steps", 6) for c in seen.calls() if c.name == "explore"]
    assert child_run.attributes.get("max_steps") == asked, (
        f"verdict: the child ran with max_steps={child_run.attributes.get('max_steps')}, "
        f"the parent asked for {asked}"
    )
    header = report.partition("\n\n")[0].splitlines()
    assert header[3:4] == [f"steps: 2/{asked}"], f"verdict: the report header is {header}"
    assert header[1:3] == [
        f"child_session: {explore.attributes.get('child_session')}",
        "stop_reason: final",
    ], f"verdict: the report header is {header}"
    _assert_report_capped(report, result.text)
    child_ids = {s.attributes["tool_call_id"] for s in child_run.children if s.kind == "tool.call"}
    _assert_parent_context_is_clean(seen, child_ids)
    seen.assert_metadata_trace(result, (README_SENTINEL, ARCH_SENTINEL, INVENTORY[0], PROMPT))
    assert_trace_golden(trace)


def _assert_child_session(app: Application, child_key: object) -> None:
    """The child ran in ``parent-<key>-explore-<id>`` with a memory of its own."""
    assert isinstance(child_key, str) and re.fullmatch(
        rf"parent-{SESSION}-explore-[A-Za-z0-9_-]+", child_key
    ), f"verdict: the child session key is {child_key!r}"
    child_memory = app.memory.load(child_key)
    parent_memory = app.memory.load(SESSION)
    assert app.memory.path_for(child_key) != app.memory.path_for(SESSION)
    assert [e.role for e in child_memory] == ["user", "assistant"], (
        f"verdict: the child session's memory holds {[e.role for e in child_memory]}"
    )
    assert "notes/inventory.txt" in child_memory[0].content, "verdict: child memory lacks its task"
    assert [e.role for e in parent_memory] == ["user", "assistant"], (
        f"verdict: the parent session's memory holds {[e.role for e in parent_memory]}"
    )
    assert parent_memory[0].content == PROMPT, "verdict: the parent memory is not the parent's"


def _parent_observation(seen: Any, call_id: str) -> str:
    for request in reversed(seen.requests):
        if "explore" not in {tool.name for tool in request.tools}:
            continue  # a child request
        for message in request.messages:
            if message.role is Role.TOOL and message.tool_call_id == call_id:
                return str(message.content)
    raise AssertionError("verdict: no observation answered the explore call")


def _assert_report_capped(observation: str, answer: str) -> None:
    assert observation.startswith("[Explorer Subagent Report]"), (
        "verdict: the parent did not receive an Explorer report"
    )
    _, _, report = observation.partition("\n\n")
    body, _, note = report.partition("\n[report truncated: ")
    assert len(body) <= REPORT_CAP and note, (
        f"verdict: the report the parent got is {len(body)} chars "
        f"({'cut' if note else 'not cut'}); the cap is {REPORT_CAP}"
    )
    assert TAIL_SENTINEL not in observation and TAIL_SENTINEL not in answer, (
        "verdict: a sentinel past the report cap reached the parent"
    )


def _assert_parent_context_is_clean(seen: Any, child_ids: set[str]) -> None:
    """The parent's requests hold the report, never child traffic."""
    parent_requests = [r for r in seen.requests if "explore" in {t.name for t in r.tools}]
    sent = "\n".join(m.model_dump_json() for r in parent_requests for m in r.messages)
    leaked = sorted(i for i in child_ids if i in sent)
    assert not leaked, f"verdict: child tool-call ids reached the parent context: {leaked}"
    assert "Architecture notes" not in sent, "verdict: raw child file text reached the parent"
