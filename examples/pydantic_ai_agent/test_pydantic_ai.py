"""Evals of the pydantic-ai Agent, on OpenAI chat, OpenAI Responses, Anthropic and Gemini."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic_ai import AgentRunResult
from pydantic_ai.messages import ToolCallPart

from examples.pydantic_ai_agent.agent import agent, model
from harness.testing import LLMCassette

CODE = "RELEASE-CODE-3M8K"


@pytest.mark.eval("pydantic-ai")
@pytest.mark.llm_cassette(profile="pydantic-ai")
@pytest.mark.parametrize("provider", ["openai", "anthropic", "openai-responses", "gemini"])
def test_reads_the_release_code(llm_cassette: LLMCassette, tmp_path: Path, provider: str) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")

    async def ask() -> AgentRunResult[str]:
        if provider == "gemini":  # GoogleModel takes the genai.Client and awaits its .aio
            client = llm_cassette.gemini()
            async with client.aio:  # closed with the run's own event loop
                return await agent.run(
                    "What is the release code?", deps=tmp_path, model=model(provider, client)
                )
        sdk = llm_cassette.async_anthropic if provider == "anthropic" else llm_cassette.async_openai
        async with sdk() as client:  # closed with the run's own event loop
            return await agent.run(
                "What is the release code?", deps=tmp_path, model=model(provider, client)
            )

    result = asyncio.run(ask())
    calls = [
        (part.tool_name, part.args_as_dict())
        for message in result.all_messages()
        for part in message.parts
        if isinstance(part, ToolCallPart)
    ]
    assert calls == [("read_file", {"path": "notes.txt"})]
    assert CODE in result.output
