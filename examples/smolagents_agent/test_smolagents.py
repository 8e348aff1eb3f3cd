"""Evals of the smolagents ToolCallingAgent: its own steps and tool calls, from its memory.

smolagents sends tool calls and results to the model as plain text, so the
wire shows no tool calls; ``from_smolagents`` reads them from the agent's memory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.smolagents_agent.agent import build
from harness.testing import LLMCassette
from harness.testing.adapters import from_smolagents

CODE = "RELEASE-CODE-7QX4"


@pytest.mark.eval("smolagents")
@pytest.mark.llm_cassette
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    agent = build(tmp_path, llm_cassette.openai())

    answer = str(agent.run("What is the release code?"))

    trace = from_smolagents(agent, mode="replay")  # replay mode keeps the arguments
    tools = [
        (span.name, span.attributes["payload"]["arguments"]) for span in trace.find_all("tool.call")
    ]
    assert tools == [("read_file", {"path": "notes.txt"})]
    assert trace.root.attributes["tool_calls"] == 1  # final_answer is the answer, not a tool
    assert CODE in answer
