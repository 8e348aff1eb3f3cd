"""Evals of the raw openai tool loop, plain and streaming.

The release code exists only in the workspace file, so an answer holding it
means the agent read the file; the exact tool calls are checked too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from examples.raw_openai.agent import run
from harness.testing import LLMCassette

CODE = "RELEASE-CODE-7Q4Z"


@pytest.mark.eval("raw-openai")
@pytest.mark.parametrize("mode", ["plain", "stream"])
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path, mode: str) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    result = run(
        "What is the release code?", tmp_path, llm_cassette.openai(), stream=mode == "stream"
    )
    assert result.calls == [("read_file", {"path": "notes.txt"})]
    assert CODE in result.answer
