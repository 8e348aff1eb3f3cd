"""Evals of a LangChain ``create_agent`` agent on ``ChatAnthropic``, streamed with ``astream``."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_anthropic import ChatAnthropic
from langchain_core.messages import AIMessage

from examples.langchain_agent.agent import MODEL, SYSTEM, ask, build
from harness.testing import LLMCassette, assert_requests, assert_trajectory, system_sha256

CODE = "RELEASE-CODE-2LC6"
# The schema LangChain derives from read_file's signature, as ChatAnthropic sends it.
READ_FILE = {"properties": {"path": {"type": "string"}}, "required": ["path"], "type": "object"}


def chat_model(llm_cassette: LLMCassette) -> ChatAnthropic:
    """ChatAnthropic on the cassette: the simulator's URL while recording, a dummy key replaying."""
    return ChatAnthropic(
        model_name=MODEL,
        base_url=llm_cassette.base_url("anthropic"),
        api_key=llm_cassette.api_key("anthropic"),  # type: ignore[arg-type]
        max_retries=0,
        timeout=None,
        stop=None,
    )


@pytest.mark.eval("langchain-agent")
@pytest.mark.llm_cassette
def test_streams_the_release_code(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    agent = build(chat_model(llm_cassette), tmp_path)

    streamed, final, messages = asyncio.run(ask(agent, "What is the release code?"))

    asked = [
        (call["name"], call["args"])
        for message in messages
        if isinstance(message, AIMessage)
        for call in message.tool_calls
    ]
    assert asked == [("read_file", {"path": "notes.txt"})]
    assert CODE in final
    assert CODE in streamed  # the answer arrived token by token, not only at the end
    calls = llm_cassette.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "notes.txt"})]
    assert CODE in (calls[0].result or "")  # the tool node sent the file back
    assert_trajectory(llm_cassette.trace(mode="replay"), [("read_file", {"path": "notes.txt"})])
    # What the agent sent, every turn: its model and prompt, no effort, read_file's schema,
    # and each request the one before it plus the new turns (a stable cache prefix).
    checks = assert_requests(llm_cassette).model(MODEL).effort(None)
    checks.system_sha256(system_sha256(SYSTEM)).tools({"read_file": READ_FILE})
    checks.stable_prefix().complete_history()
