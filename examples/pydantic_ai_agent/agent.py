"""A pydantic-ai Agent with one ``read_file`` tool: OpenAI (chat, Responses), Anthropic, Gemini."""

from __future__ import annotations

from pathlib import Path

from anthropic import AsyncAnthropic
from google import genai
from openai import AsyncOpenAI
from pydantic_ai import Agent, RunContext
from pydantic_ai.models import Model
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.models.google import GoogleModel
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.providers.anthropic import AnthropicProvider
from pydantic_ai.providers.google import GoogleProvider
from pydantic_ai.providers.openai import OpenAIProvider

MODELS = {
    "openai": "gpt-4.1-mini",
    "openai-responses": "gpt-4.1-mini",
    "anthropic": "claude-sonnet-4-6",
    "gemini": "gemini-2.5-flash",
}
Client = AsyncOpenAI | AsyncAnthropic | genai.Client

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


def model(provider: str, client: Client | None = None) -> Model:
    """The model for ``provider`` on ``client`` (default: one from the environment).

    ``provider`` is ``"openai"`` (chat completions), ``"openai-responses"`` (the
    Responses API), ``"anthropic"`` or ``"gemini"`` (``GoogleModel`` on the Gemini
    API; its client is google-genai's ``genai.Client``, whose ``.aio`` it awaits).
    """
    if provider == "gemini":
        assert client is None or isinstance(client, genai.Client)
        google = GoogleProvider(client=client) if client is not None else GoogleProvider()
        return GoogleModel(MODELS["gemini"], provider=google)
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
        if provider == "gemini":  # GoogleProvider builds its client from GEMINI_API_KEY
            return (await agent.run(prompt, deps=workspace, model=model(provider))).output
        async with AsyncAnthropic() if provider == "anthropic" else AsyncOpenAI() as client:
            return (await agent.run(prompt, deps=workspace, model=model(provider, client))).output

    return asyncio.run(ask())
