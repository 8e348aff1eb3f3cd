"""AsyncOpenAI and AsyncAnthropic record and replay through the same cassette layer.

The providers take an async SDK client and are awaited with ``acomplete``;
plain and streamed calls are recorded against the simulator, which is then
stopped, and replayed offline to the same responses.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from harness.core import ConfigurationError, LLMRequest, LLMResponse, Message
from harness.providers import AnthropicProvider, OpenAIProvider
from harness.recording import UnmatchedRequestError, use_cassette
from harness.simulator import SimulatorServer

from .helpers import AGENT_SCRIPT, ANTHROPIC_KEY, OPENAI_KEY

REQUEST = LLMRequest(messages=(Message.user("Read notes.txt"),))


def _provider(kind: str, url: str, stream: bool) -> OpenAIProvider | AnthropicProvider:
    if kind == "openai":
        client = openai.AsyncOpenAI(
            api_key=OPENAI_KEY,
            base_url=f"{url}/v1",
            max_retries=0,
            http_client=httpx2.AsyncClient(),
        )
        return OpenAIProvider("gpt-4o-mini", client=client, stream=stream)
    async_client = anthropic.AsyncAnthropic(
        api_key=ANTHROPIC_KEY, base_url=url, max_retries=0, http_client=httpx2.AsyncClient()
    )
    return AnthropicProvider("claude-harness-test", client=async_client, stream=stream)


async def _complete(provider: OpenAIProvider | AnthropicProvider, times: int = 1) -> Any:
    results = [await provider.acomplete(REQUEST) for _ in range(times)]
    await provider._client.close()  # type: ignore[union-attr]
    return results


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "stream"])
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_async_clients_record_and_replay(tmp_path: Path, kind: str, stream: bool) -> None:
    path = tmp_path / f"{kind}.yaml"
    with SimulatorServer(AGENT_SCRIPT) as sim:
        url = sim.url
        with use_cassette(path, record_mode="once") as recording:
            [recorded] = asyncio.run(_complete(_provider(kind, url, stream)))
    assert recording.report.recorded == 1
    text = path.read_text(encoding="utf-8")
    assert ("text/event-stream" in text) is stream
    with use_cassette(path, allow_unplayed=False) as replay:
        [replayed] = asyncio.run(_complete(_provider(kind, url, stream)))
    assert replay.report.played == 1
    assert isinstance(replayed, LLMResponse)
    assert replayed == recorded
    assert replayed.tool_calls and replayed.tool_calls[0].name == "read"


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_an_async_replay_miss_is_raised_unwrapped(tmp_path: Path, kind: str) -> None:
    path = tmp_path / f"{kind}.yaml"
    with SimulatorServer(AGENT_SCRIPT) as sim:
        url = sim.url
        with use_cassette(path, record_mode="once"):
            asyncio.run(_complete(_provider(kind, url, False)))
    with pytest.raises(UnmatchedRequestError, match="already played"), use_cassette(path):
        asyncio.run(_complete(_provider(kind, url, False), times=2))


def test_raw_async_sdk_streams_replay(tmp_path: Path) -> None:
    path = tmp_path / "raw.yaml"

    async def chat(url: str) -> list[str]:
        client = openai.AsyncOpenAI(
            api_key=OPENAI_KEY, base_url=f"{url}/v1", http_client=httpx2.AsyncClient()
        )
        async with client:
            stream = await client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "Read notes.txt"}],
                stream=True,
            )
            return [chunk.model_dump_json() async for chunk in stream]

    with SimulatorServer(AGENT_SCRIPT) as sim:
        url = sim.url
        with use_cassette(path, record_mode="once"):
            recorded = asyncio.run(chat(url))
    with use_cassette(path):
        assert asyncio.run(chat(url)) == recorded


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_complete_with_an_async_client_says_to_await_acomplete(kind: str) -> None:
    provider = _provider(kind, "http://127.0.0.1:9", False)
    with pytest.raises(ConfigurationError, match="acomplete"):
        provider.complete(REQUEST)
    asyncio.run(provider._client.close())  # type: ignore[union-attr]


def test_acomplete_with_a_sync_client_runs_it_in_a_thread(tmp_path: Path) -> None:
    path = tmp_path / "sync.yaml"
    with SimulatorServer(AGENT_SCRIPT) as sim:
        client = openai.OpenAI(api_key=OPENAI_KEY, base_url=f"{sim.url}/v1", max_retries=0)
        with OpenAIProvider("gpt-4o-mini", client=client) as provider:
            with use_cassette(path, record_mode="once"):
                recorded = asyncio.run(provider.acomplete(REQUEST))
            sim.stop()
            with use_cassette(path):
                assert asyncio.run(provider.acomplete(REQUEST)) == recorded
        client.close()
