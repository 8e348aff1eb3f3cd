"""``LangGraphTraceHandler``: real LangGraph graphs on ChatOpenAI, against the simulator.

The graphs are hand-built ReAct loops (``StateGraph`` + ``ToolNode``) run over
real HTTP to ``harness.simulator`` on 127.0.0.1; the handler's tree is checked
against the traffic trace of the same run's cassette. The recipe's replay
(examples/langgraph_agent) runs through ``harness eval`` in a subprocess.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.testing import assert_trace_shape, assert_trajectory, trace_from_cassette
from harness.tracing import TraceTree, TraceUsageError, validate_trace_document
from harness.view import build_trace_page

# One worker imports the heavy frameworks for all of this module (see the root conftest).
pytestmark = pytest.mark.xdist_group("agent-frameworks")

if not all(importlib.util.find_spec(name) for name in ("langgraph", "langchain_openai")):
    pytest.skip("needs LangGraph: pip install langgraph langchain-openai", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[3]
SENTINEL = "SENTINEL-LANGGRAPH-7341"
KEY = "sk-test-simulator0000"
SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        f"The marker is {SENTINEL}.",
    ],
}
NODES = """
agent.run
  graph.node agent
    llm.call
  graph.node tools
    tool.call read_file
  graph.node agent
    llm.call
"""

PAUSED = """
agent.run
  graph.node agent
    llm.call
  graph.node tools
    tool.call read_file
"""
RESUMED = """
agent.run
  graph.node tools
    tool.call read_file
  graph.node agent
    llm.call
"""


def _graph(url: str, *, approve: bool = False, fail: bool = False, checkpointer: Any = None) -> Any:
    """A ReAct graph: ``agent`` (ChatOpenAI on ``url``) <-> ``tools`` (``read_file``)."""
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition
    from langgraph.types import interrupt

    @tool
    def read_file(path: str) -> str:
        """Read a file of the workspace."""
        if approve and interrupt({"path": path}) != "yes":
            return "refused"
        if fail:
            raise ValueError(f"no file {path}")
        return f"{path}: {SENTINEL}"

    model = ChatOpenAI(model="gpt-4.1-mini", base_url=url + "/v1", api_key=KEY, max_retries=0)
    bound = model.bind_tools([read_file])

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [bound.invoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([read_file], handle_tool_errors=fail))  # errors: to the model
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer, name="reader")


def _handler(**kwargs: Any) -> Any:
    from harness.testing.adapters import LangGraphTraceHandler

    return LangGraphTraceHandler(**kwargs)


def _valid(tree: TraceTree) -> TraceTree:
    validate_trace_document(json.loads(tree.to_json()))  # raises on a bad document
    assert tree.trace_id in build_trace_page([tree])  # harness view renders it
    return tree


PROMPT = {"messages": [("user", "What is the marker in notes.txt?")]}


def test_each_graph_node_is_a_span_with_its_model_and_tool_calls(tmp_path: Path) -> None:
    cassette = tmp_path / "cassette.yaml"
    handler = _handler(mode="replay")
    with SimulatorServer(SCRIPT) as sim, use_cassette(cassette, record_mode="once"):
        result = _graph(sim.url).invoke(PROMPT, {"callbacks": [handler]})
    assert SENTINEL in result["messages"][-1].content
    tree = _valid(handler.tree())
    assert_trace_shape(tree, NODES)
    assert tree.root.attributes["agent_name"] == "reader"
    assert tree.root.attributes["source"] == "langgraph"
    assert [s.attributes["step"] for s in tree.find_all("graph.node")] == [1, 2, 3]
    assert_trajectory(tree, [("read_file", {"path": "notes.txt"})])
    tool = tree.one("tool.call")
    assert tool.attributes["tool_call_index"] == 0
    assert tool.attributes["payload"]["observation"] == f"notes.txt: {SENTINEL}"
    # The framework's view and the wire's agree on the call, its result and the tokens.
    traffic = trace_from_cassette(cassette)
    keys = ("tool_call_id", "argument_hash", "observation_hash")
    assert {k: tool.attributes[k] for k in keys} == {
        k: traffic.one("tool.call").attributes[k] for k in keys
    }
    tokens = [c.attributes["input_tokens"] for c in tree.find_all("llm.call")]
    assert tokens == [c.attributes["input_tokens"] for c in traffic.find_all("llm.call")]
    assert tree.find_all("llm.call")[0].attributes["tool_calls"][0]["name"] == "read_file"


def test_an_async_streamed_run_has_the_same_node_spans() -> None:
    import asyncio

    handler = _handler()

    async def run() -> list[Any]:
        graph = _graph(sim.url)
        return [u async for u in graph.astream(PROMPT, {"callbacks": [handler]})]

    with SimulatorServer(SCRIPT) as sim:
        updates = asyncio.run(run())
    assert [next(iter(update)) for update in updates] == ["agent", "tools", "agent"]
    assert_trace_shape(_valid(handler.tree()), NODES)


def test_a_failing_tool_is_an_error_span_and_metadata_mode_keeps_no_payload() -> None:
    handler = _handler(mode="metadata")
    with SimulatorServer(SCRIPT) as sim:
        _graph(sim.url, fail=True).invoke(PROMPT, {"callbacks": [handler]})
    tool = _valid(handler.tree()).one("tool.call")
    assert (tool.status, tool.attributes["is_error"]) == ("error", True)
    assert "payload" not in tool.attributes


def test_an_interrupt_and_its_resume_are_two_runs_the_first_ending_interrupted() -> None:
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.types import Command

    handler = _handler()
    config = {"configurable": {"thread_id": "t"}, "callbacks": [handler]}
    with SimulatorServer(SCRIPT) as sim:
        graph = _graph(sim.url, approve=True, checkpointer=InMemorySaver())
        assert graph.invoke(PROMPT, config)["__interrupt__"][0].value == {"path": "notes.txt"}
        assert handler.tree().one("tool.call").attributes["interrupted"] is True
        result = graph.invoke(Command(resume="yes"), config)
    with pytest.raises(TraceUsageError, match=r"2 runs were collected.*trees\(\)"):
        handler.tree()
    assert SENTINEL in result["messages"][-1].content
    paused, resumed = (_valid(t) for t in handler.trees())
    # The paused tool call is kept, marked: its run began and was interrupted, then re-run.
    assert_trace_shape(paused, PAUSED)
    interrupted = paused.find_all("graph.node")[-1]
    assert interrupted.status == "ok" and interrupted.attributes["interrupted"] is True
    assert_trace_shape(resumed, RESUMED)
    handler.clear()
    with pytest.raises(TraceUsageError, match="no run was collected"):
        handler.tree()


def test_the_interrupt_recipe_records_then_replays_offline(pytester: pytest.Pytester) -> None:
    """A human-in-the-loop test: paused, resumed from its checkpointer, under llm_cassette."""
    pytester.makepyfile(
        test_review=f"""
        from langchain_core.tools import tool
        from langchain_openai import ChatOpenAI
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.graph import START, MessagesState, StateGraph
        from langgraph.prebuilt import ToolNode, tools_condition
        from langgraph.types import Command, interrupt
        import pytest
        from harness.testing.adapters import LangGraphTraceHandler

        @tool
        def read_file(path: str) -> str:
            "Read a file."
            return "refused" if interrupt({{"path": path}}) != "yes" else "{SENTINEL}"

        @pytest.mark.eval("review")
        @pytest.mark.llm_cassette
        def test_review(llm_cassette):
            model = ChatOpenAI(model="gpt-4.1-mini", base_url=llm_cassette.base_url("openai"),
                               api_key=llm_cassette.api_key("openai"), max_retries=0)
            bound = model.bind_tools([read_file])
            graph = StateGraph(MessagesState)
            graph.add_node("agent", lambda s: {{"messages": [bound.invoke(s["messages"])]}})
            graph.add_node("tools", ToolNode([read_file]))
            graph.add_edge(START, "agent")
            graph.add_conditional_edges("agent", tools_condition)
            graph.add_edge("tools", "agent")
            app = graph.compile(checkpointer=InMemorySaver())
            handler = LangGraphTraceHandler(mode="replay")
            config = {{"configurable": {{"thread_id": "1"}}, "callbacks": [handler]}}
            paused = app.invoke({{"messages": [("user", "marker?")]}}, config)
            assert paused["__interrupt__"][0].value == {{"path": "notes.txt"}}
            result = app.invoke(Command(resume="yes"), config)
            assert "{SENTINEL}" in result["messages"][-1].content
            assert [c.name for c in llm_cassette.tool_calls()] == ["read_file"]
            paused_run, resumed_run = handler.trees()
            assert paused_run.one("tool.call").attributes["interrupted"] is True
            assert resumed_run.one("tool.call").attributes["payload"]["observation"] == "{SENTINEL}"
        """
    )
    with SimulatorServer(SCRIPT) as sim:
        recorded = pytester.runpytest(
            "-p", "no:randomly", "--record-mode", "once", "--harness-base-url", sim.url
        )
    recorded.assert_outcomes(passed=1)
    [cassette] = (pytester.path / "cassettes").rglob("*.yaml")
    assert "simulator" in cassette.read_text("utf-8")
    replayed = pytester.runpytest("-p", "no:randomly", "--record-mode", "none",
                                  "--harness-block-live")  # fmt: skip
    replayed.assert_outcomes(passed=1)
    traffic = trace_from_cassette(cassette)  # the paused run's call and the resumed run's
    assert (len(traffic.find_all("llm.call")), traffic.one("tool.call").name) == (2, "read_file")


def test_importing_the_adapters_imports_no_langchain() -> None:
    code = "import sys, harness.testing.adapters; print('langchain_core' in sys.modules)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "False"


@pytest.mark.deep  # `harness eval --mutants` over the recipe in a subprocess
def test_the_recipe_replays_and_kills_its_mutants(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    run = subprocess.run(
        [sys.executable, "-m", "harness", "eval", "--evals-dir", "examples/langgraph_agent",
         "--harness-cassette-dir", "examples/cassettes", "--harness-block-live", "--mutants",
         "--report", str(report), "-p", "no:randomly"],
        cwd=ROOT, env=clean, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "langgraph " in run.stdout and "langgraph-approval" in run.stdout
    data = json.loads(report.read_text("utf-8"))
    assert data, run.stdout
    assert "0 error(s)" in run.stdout and "0 survived" in run.stdout, run.stdout[-2000:]
