"""An OpenAI Agents SDK Agent with one ``read_file`` tool, on chat completions or Responses.

``api="responses"`` is the SDK's own default model path (``OpenAIResponsesModel``,
what ``Agent(model="gpt-4.1-mini")`` builds); ``"chat"`` is chat completions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from agents import (
    Agent,
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunContextWrapper,
    Runner,
    function_tool,
)
from openai import AsyncOpenAI

MODEL = "gpt-4.1-mini"


@function_tool
def read_file(ctx: RunContextWrapper[Path], path: str) -> str:
    """Read a text file of the workspace.

    Args:
        path: the file's path inside the workspace.
    """
    target = (ctx.context / path).resolve()
    if not target.is_relative_to(ctx.context.resolve()) or not target.is_file():
        return f"error: no file {path!r} in the workspace"
    return target.read_text("utf-8")


def build(
    client: AsyncOpenAI | None = None, api: Literal["chat", "responses"] = "chat"
) -> Agent[Path]:
    """The agent; its client reads OPENAI_BASE_URL / OPENAI_API_KEY unless one is given."""
    sdk = client or AsyncOpenAI()
    model: Model = (
        OpenAIResponsesModel(model=MODEL, openai_client=sdk)
        if api == "responses"
        else OpenAIChatCompletionsModel(model=MODEL, openai_client=sdk)
    )
    return Agent[Path](
        name="reader",
        instructions="Answer from the workspace files; read them first.",
        tools=[read_file],
        model=model,
    )


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.openai_agents.agent:answer``."""
    import asyncio

    async def ask() -> str:
        async with AsyncOpenAI() as client:  # closed before the run's event loop is
            result = await Runner.run(build(client), prompt, context=workspace)
        return str(result.final_output)

    return asyncio.run(ask())
