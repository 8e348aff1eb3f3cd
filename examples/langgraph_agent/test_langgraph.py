"""Evals of the LangGraph ReAct agent on ChatOpenAI, and a human-in-the-loop resume."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage
from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from examples.langgraph_agent.agent import MODEL, SYSTEM, build
from harness.testing import LLMCassette, assert_requests, assert_trajectory, system_sha256
from harness.testing.adapters import LangGraphTraceHandler

CODE = "RELEASE-CODE-3M8K"
# The schema LangChain derives from read_file's signature, as ChatOpenAI sends it.
READ_FILE = {"properties": {"path": {"type": "string"}}, "required": ["path"], "type": "object"}


def chat_model(llm_cassette: LLMCassette) -> ChatOpenAI:
    """ChatOpenAI on the cassette: the simulator's URL while recording, a dummy key replaying."""
    return ChatOpenAI(
        model=MODEL,
        base_url=llm_cassette.base_url("openai"),
        api_key=llm_cassette.api_key("openai"),  # type: ignore[arg-type]
        max_retries=0,
    )


def check_requests(llm_cassette: LLMCassette) -> None:
    """What the graph sent, every turn: its model and prompt, no effort, read_file's
    schema, and each request the one before it plus the new turns (a stable cache prefix)."""
    checks = assert_requests(llm_cassette).model(MODEL).effort(None)
    checks.system_sha256(system_sha256(SYSTEM)).tools({"read_file": READ_FILE})
    checks.stable_prefix().complete_history()


@pytest.mark.eval("langgraph")
@pytest.mark.llm_cassette
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    handler = LangGraphTraceHandler(mode="replay")
    graph = build(chat_model(llm_cassette), tmp_path)

    result = graph.invoke(
        {"messages": [("user", "What is the release code?")]}, {"callbacks": [handler]}
    )

    calls = [
        (call["name"], call["args"])
        for message in result["messages"]
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
    assert calls == [("read_file", {"path": "notes.txt"})]
    assert CODE in str(result["messages"][-1].content)
    assert_trajectory(handler.tree(), [("read_file", {"path": "notes.txt"})])
    check_requests(llm_cassette)


@pytest.mark.eval("langgraph-approval")
@pytest.mark.llm_cassette
def test_resumes_after_the_reviewer_approves(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    graph = build(chat_model(llm_cassette), tmp_path, approve=True, checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "review-1"}}

    paused = graph.invoke({"messages": [("user", "What is the release code?")]}, config)
    assert "__interrupt__" in paused, "the graph answered without asking the reviewer"
    [asked] = paused["__interrupt__"]
    assert asked.value["path"] == "notes.txt"
    assert graph.get_state(config).next == ("tools",)

    result = graph.invoke(Command(resume="yes"), config)

    assert CODE in str(result["messages"][-1].content)
    assert graph.get_state(config).next == ()
    check_requests(llm_cassette)  # the resumed run goes on from the paused run's history
