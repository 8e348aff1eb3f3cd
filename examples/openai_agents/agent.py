"""An OpenAI Agents SDK Agent with one ``read_file`` tool, on chat completions."""

from __future__ import annotations

from pathlib import Path

from agents import Agent, OpenAIChatCompletionsModel, RunContextWrapper, Runner, function_tool
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


def build(client: AsyncOpenAI | None = None) -> Agent[Path]:
    """The agent; its client reads OPENAI_BASE_URL / OPENAI_API_KEY unless one is given."""
    return Agent[Path](
        name="reader",
        instructions="Answer from the workspace files; read them first.",
        tools=[read_file],
        model=OpenAIChatCompletionsModel(model=MODEL, openai_client=client or AsyncOpenAI()),
    )


def answer(prompt: str, workspace: Path) -> str:
    """The case-file entry point: ``target: examples.openai_agents.agent:answer``."""
    import asyncio

    async def ask() -> str:
        async with AsyncOpenAI() as client:  # closed before the run's event loop is
            result = await Runner.run(build(client), prompt, context=workspace)
        return str(result.final_output)

    return asyncio.run(ask())
