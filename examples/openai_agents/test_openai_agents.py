"""Evals of the OpenAI Agents SDK Agent on chat completions and on the Responses API.

The SDK adds a fresh ``prompt_cache_key`` (and, on chat completions, ``store``)
to requests bound for api.openai.com, on either API: the ``openai-agents``
profile leaves them out of matching.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any, Literal

import pytest
from agents import Runner, RunResult

from examples.openai_agents.agent import build
from harness.testing import LLMCassette

CODE = "RELEASE-CODE-9T2W"


def _ask(llm_cassette: LLMCassette, workspace: Path, api: Literal["chat", "responses"]) -> Any:
    async def ask() -> RunResult:
        async with llm_cassette.async_openai() as client:  # closed with the run's own loop
            agent = build(client, api)
            return await Runner.run(agent, "What is the release code?", context=workspace)

    result = asyncio.run(ask())
    calls = [
        (item.raw_item.name, json.loads(item.raw_item.arguments))
        for item in result.new_items
        if item.type == "tool_call_item"
    ]
    assert calls == [("read_file", {"path": "notes.txt"})]
    return result.final_output


@pytest.mark.eval("openai-agents")
@pytest.mark.llm_cassette(profile="openai-agents")
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    assert CODE in str(_ask(llm_cassette, tmp_path, "chat"))


@pytest.mark.eval("openai-agents-responses")
@pytest.mark.llm_cassette(profile="openai-agents")
def test_reads_the_release_code_on_responses(llm_cassette: LLMCassette, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    assert CODE in str(_ask(llm_cassette, tmp_path, "responses"))
