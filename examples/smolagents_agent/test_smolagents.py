"""Evals of the smolagents ToolCallingAgent: its own steps and tool calls, from its memory.

smolagents sends tool calls and results to the model as plain text, so the
wire shows no tool calls; ``from_smolagents`` reads them from the agent's memory.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.smolagents_agent.agent import MODEL, build
from harness.testing import LLMCassette, assert_requests, system_sha256
from harness.testing.adapters import from_smolagents

CODE = "RELEASE-CODE-7QX4"
# The tools as smolagents sends them: read_file's inputs, and its own final_answer.
TOOLS = {
    "read_file": {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "the file, relative to the workspace"}
        },
        "required": ["path"],
    },
    "final_answer": {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "description": "The final answer to the problem"}
        },
        "required": ["answer"],
    },
}


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
    # What the agent sent, every step: its model, no effort, the system prompt it built
    # (smolagents' template with the tools filled in), the tools' schemas, and each
    # request the one before it plus the new step (a stable cache prefix).
    checks = assert_requests(llm_cassette).model(MODEL).effort(None)
    checks.system_sha256(system_sha256(agent.system_prompt)).tools(TOOLS)
    checks.stable_prefix().complete_history()
