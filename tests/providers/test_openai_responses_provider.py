"""``OpenAIResponsesProvider`` in harness's runtime, against the simulator over real HTTP.

A reasoning model's encrypted reasoning items must come back on every later
turn, statelessly (``store: false``, never ``previous_response_id``); they live
in the assistant messages' metadata, so they also survive a checkpoint.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness import Settings, build_application
from harness.core import ConfigurationError, LLMRequest, Message, ProviderError, Role
from harness.simulator import SimulatorServer
from harness.wires.openai_responses.items import ITEMS_KEY, from_response, to_input_items
from harness.wires.openai_responses.provider import OpenAIResponsesProvider

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


_ARGS = st.dictionaries(st.sampled_from(["path", "n", "q"]), st.integers() | st.text(max_size=8))


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(
    reasoning=st.integers(0, 2),
    text=st.text(max_size=20),
    calls=st.lists(_ARGS, max_size=3),
    drop=st.sets(st.integers(0, 2)),
)
def test_output_items_come_back_in_order_with_the_message_as_it_stands(
    reasoning: int, text: str, calls: list[dict[str, Any]], drop: set[int]
) -> None:
    """from_response -> assistant Message -> input items: reasoning verbatim, each
    before an item with its id; a call the history no longer has is not resent."""
    output: list[dict[str, Any]] = [
        {"type": "reasoning", "id": f"rs_{n}", "summary": [], "encrypted_content": f"gAAAA{n}"}
        for n in range(reasoning)
    ]
    if text:
        output.append(
            {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )
    output += [
        {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": f"call_{n}",
            "name": "read",
            "arguments": json.dumps(args),
        }
        for n, args in enumerate(calls)
    ]
    response = from_response({"id": "r", "status": "completed", "output": output})
    kept = tuple(c for n, c in enumerate(response.tool_calls) if n not in drop)
    message = Message.assistant(response.text, kept, response.metadata)
    restored = Message.model_validate_json(message.model_dump_json())
    _, items = to_input_items((Message.user("go"), restored))
    items = items[1:]
    sent = [item for item in items if item.get("type") == "function_call"]
    assert [(i["call_id"], json.loads(i["arguments"])) for i in sent] == [
        (c.id, c.arguments) for c in kept
    ]
    texts = [i for i in items if i.get("role") == "assistant"]
    assert len(texts) == (1 if text else 0)
    for at, item in enumerate(items):
        if item.get("type") == "reasoning":
            assert item in output
            following = items[at + 1] if at + 1 < len(items) else {}
            assert following.get("type") in ("message", "function_call") and following["id"]
    if reasoning and (text or kept):  # the last reasoning item precedes what is left
        assert [i["id"] for i in items if i.get("type") == "reasoning"] == [f"rs_{reasoning - 1}"]
