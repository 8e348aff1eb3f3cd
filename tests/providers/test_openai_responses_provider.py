"""``OpenAIResponsesProvider`` in harness's runtime, against the simulator over real HTTP.

A reasoning model's encrypted reasoning items must come back on every later
turn, statelessly (``store: false``, never ``previous_response_id``); they live
in the assistant messages' metadata, so they also survive a checkpoint.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import openai
import pytest

from harness import Settings, build_application
from harness.core import ConfigurationError, LLMRequest, Message, ProviderError, Role
from harness.providers.openai_responses import OpenAIResponsesProvider
from harness.providers.responses_items import ITEMS_KEY
from harness.simulator import SimulatorServer

SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]},
        {
            "tool_calls": [
                {"name": "read", "arguments": {"path": "b.txt"}},
                {"name": "read", "arguments": {"path": "a.txt"}},
            ]
        },
        "a says alpha, b says beta",
    ],
}
KEY = "sk-test-SECRET4242"


def _reasoning(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [item for item in items if item.get("type") == "reasoning"]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_reasoning_items_are_carried_across_three_turns(tmp_path: Path, stream: bool) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n")
    (work / "b.txt").write_text("beta\n")
    with SimulatorServer(SCRIPT) as server:
        provider = OpenAIResponsesProvider(
            "gpt-5-mini",
            api_key=KEY,
            base_url=f"{server.url}/v1",
            max_retries=0,
            stream=stream,
            reasoning_effort="low",
        )
        settings = Settings(workdir=work, state_dir=tmp_path / "state")
        with provider:
            result = build_application(settings, provider=provider).run("read", session="r")
        bodies = [request.body for request in server.requests]
    assert result.stop_reason == "final" and result.text == "a says alpha, b says beta"
    assert [r.status for r in server.requests] == [200, 200, 200]
    for body in bodies:
        assert body["store"] is False and "previous_response_id" not in body
        assert body["include"] == ["reasoning.encrypted_content"]
        assert body["reasoning"] == {"effort": "low"}
    carried = [_reasoning(body["input"]) for body in bodies]
    assert [len(items) for items in carried] == [0, 1, 2]
    assert carried[2][0] == carried[1][0], "turn 1's reasoning is resent unchanged"
    assert all(item["encrypted_content"].startswith("gAAAA") for item in carried[2])
    # Each reasoning item is followed by the item it preceded, with that item's id.
    third = bodies[2]["input"]
    for at, item in enumerate(third):
        if item.get("type") == "reasoning":
            assert third[at + 1]["type"] == "function_call" and third[at + 1]["id"]
    assert result.usage.reasoning_tokens > 0
    assert result.usage.reasoning_tokens <= result.usage.output_tokens


def test_reasoning_metadata_survives_a_json_roundtrip() -> None:
    with SimulatorServer(SCRIPT) as server:
        provider = OpenAIResponsesProvider(
            "gpt-5-mini", api_key=KEY, base_url=f"{server.url}/v1", reasoning_effort="low"
        )
        with provider:
            response = provider.complete(LLMRequest(messages=(Message.user("go"),)))
    message = Message.assistant(response.text, response.tool_calls, response.metadata)
    again = Message.model_validate_json(message.model_dump_json())
    assert again == message
    assert again.metadata[ITEMS_KEY][0]["type"] == "reasoning"


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_async_client_is_awaited_natively(stream: bool) -> None:
    async def run(url: str) -> str:
        async with openai.AsyncOpenAI(api_key=KEY, base_url=f"{url}/v1") as client:
            provider = OpenAIResponsesProvider("gpt-4.1-mini", client=client, stream=stream)
            with pytest.raises(ConfigurationError, match="acomplete"):
                provider.complete(LLMRequest(messages=(Message.user("hi"),)))
            response = await provider.acomplete(LLMRequest(messages=(Message.user("hi"),)))
            return response.tool_calls[0].arguments["path"]

    with SimulatorServer(SCRIPT) as server:
        assert asyncio.run(run(server.url)) == "a.txt"


def test_errors_become_provider_errors_without_the_key() -> None:
    script = {"version": 1, "turns": [{"error": {"status": 429, "message": "slow down"}}]}
    with SimulatorServer(script) as server:
        provider = OpenAIResponsesProvider(
            "gpt-4.1-mini", api_key=KEY, base_url=f"{server.url}/v1", max_retries=0
        )
        with provider, pytest.raises(ProviderError) as raised:
            provider.complete(LLMRequest(messages=(Message.user("hi"),)))
    assert raised.value.status_code == 429 and "slow down" in str(raised.value)
    assert KEY not in str(raised.value)


def test_a_tool_result_without_its_call_id_is_refused_before_sending() -> None:
    provider = OpenAIResponsesProvider("gpt-4.1-mini", api_key=KEY, base_url="http://127.0.0.1:9")
    bad = Message(role=Role.TOOL, content="r")
    with provider, pytest.raises(ProviderError, match="tool_call_id"):
        provider.complete(LLMRequest(messages=(Message.user("hi"), bad)))
