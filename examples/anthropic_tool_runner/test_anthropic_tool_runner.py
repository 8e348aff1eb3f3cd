"""Evals of an agent on the Anthropic SDK's tool runner (``client.beta.messages.tool_runner``).

The runner sends the tool results back as ``tool_result`` blocks, so the wire
shows every call: ``llm_cassette.tool_calls()`` reads them, arguments and
results, from the test's model traffic; no adapter is needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.anthropic_tool_runner.agent import MODEL, SYSTEM, run
from harness.testing import LLMCassette, assert_requests, assert_trajectory, system_sha256

CODE = "RELEASE-CODE-5TR9"
# The schema @beta_tool derives from read_file's signature and docstring.
READ_FILE = {
    "additionalProperties": False,
    "properties": {
        "path": {
            "description": "the file's path, relative to the workspace.",
            "title": "Path",
            "type": "string",
        }
    },
    "required": ["path"],
    "type": "object",
}


@pytest.mark.eval("anthropic-tool-runner")
@pytest.mark.llm_cassette
@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path, stream: bool) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")

    answer = run(llm_cassette.anthropic(), "What is the release code?", tmp_path, stream=stream)

    calls = llm_cassette.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "notes.txt"})]
    assert CODE in (calls[0].result or "")  # the runner sent the file back
    assert_trajectory(llm_cassette.trace(mode="replay"), [("read_file", {"path": "notes.txt"})])
    assert CODE in answer
    # What the runner sent. It continues a server-kept thread (``thread: continue``):
    # only the first request states the prompt and the tools, and no request repeats
    # the history, so there is no prefix to keep stable.
    checks = assert_requests(llm_cassette).model(MODEL).effort(None)
    checks.at(0).system_sha256(system_sha256(SYSTEM)).tools({"read_file": READ_FILE})
