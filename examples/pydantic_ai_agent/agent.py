"""A pydantic-ai Agent with one ``read_file`` tool: OpenAI chat, OpenAI Responses or Anthropic."""

from __future__ import annotations

from pathlib import Path

from anthropic import AsyncAnthropic
from openai import AsyncOpenAI
from pydantic_ai import Agent, RunContext
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.openai import OpenAIProvider

MODELS = {
    "openai": "gpt-4.1-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-6",
}

agent = Agent(
    deps_type=Path,
    instructions="Answer from the workspace files; read them first.",
)


@agent.tool
def read_file(ctx: RunContext[Path], path: str) -> str:
    """Read a text file of the workspace."""
    target = (ctx.deps / path).resolve()
    if not target.is_relative_to(ctx.deps.resolve()) or not target.is_file():
        return f"error: no file {path!r} in the workspace"
    return target.read_text("utf-8")


def model(provider: str, client: AsyncOpenAI | AsyncAnthropic | None = None) -> Model:
    """The model for ``provider`` on ``client`` (default: one from the environment).

    ``provider`` is ``"openai"`` (chat completions), ``"openai-responses"`` (the
    Responses API) or ``"anthropic"``.
    """
    if provider == "anthropic":
        assert client is None or isinstance(client, AsyncAnthropic)
        return AnthropicModel(
            MODELS["anthropic"], provider=AnthropicProvider(anthropic_client=client)
        )
    assert client is None or isinstance(client, AsyncOpenAI)
    if provider == "openai-responses":
        return OpenAIResponsesModel(
            MODELS["openai-responses"], provider=OpenAIProvider(openai_client=client)
        )
    return OpenAIChatModel(MODELS["openai"], provider=OpenAIProvider(openai_client=client))


def answer(prompt: str, workspace: Path, provider: str = "openai") -> str:
    """The case-file entry point: ``target: examples.pydantic_ai_agent.agent:answer``."""
    import asyncio

    async def ask() -> str:
        async with AsyncAnthropic() if provider == "anthropic" else AsyncOpenAI() as client:
            return (await agent.run(prompt, deps=workspace, model=model(provider, client))).output

    return asyncio.run(ask())
