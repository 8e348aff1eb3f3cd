"""The simulator's ``POST /v1/responses`` through the real ``openai`` SDK.

JSON and SSE, sync and async clients: every answer validates against the SDK's
own ``Response`` and stream event types, rules and turns answer it as they
answer the other endpoints, and it refuses what the stateless real API refuses.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from openai.types.responses import Response, ResponseStreamEvent
from pydantic import TypeAdapter

from harness.simulator import SimulatorServer

TOOLS: list[Any] = [
    {
        "type": "function",
        "name": "read",
        "description": "Read a file",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        "strict": False,
    }
]
SCRIPT = {
    "version": 1,
    "rules": [
        {
            "when": {"last_tool_result_contains": "SENTINEL-"},
            "reply": {"text": "The file says {match}"},
            "fill": "SENTINEL-[A-Z0-9-]+",
        },
        {
            "when": {"last_user_contains": "two files"},
            "reply": {
                "tool_calls": [
                    {"name": "read", "arguments": {"path": "a.txt"}},
                    {"name": "read", "arguments": {"path": "b.txt"}},
                ]
            },
        },
    ],
    "turns": [{"text": "Hello from the simulator."}],
    "when_exhausted": "repeat_last",
}
EVENTS: TypeAdapter[Any] = TypeAdapter(ResponseStreamEvent)


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    with SimulatorServer(SCRIPT) as server:
        yield server


def _client(sim: SimulatorServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-sim-unused", base_url=f"{sim.url}/v1", max_retries=0)


@pytest.fixture
def client(sim: SimulatorServer) -> Iterator[openai.OpenAI]:
    # Closed, not left to the garbage collector: a client collected in a cycle
    # can let its socket be finalized first, an "unclosed socket" in a later test.
    with _client(sim) as made:
        yield made


def _answer_calls(output: list[Any], text: str) -> list[Any]:
    return [
        {"type": "function_call_output", "call_id": item.call_id, "output": text}
        for item in output
        if item.type == "function_call"
    ]


def test_json_answers_validate_and_carry_parallel_calls(
    sim: SimulatorServer, client: openai.OpenAI
) -> None:
    first = client.responses.create(
        model="gpt-4.1-mini", input="Read the two files", tools=TOOLS, store=False
    )
    Response.model_validate(first.to_dict())  # strict: every required field present
    calls = [item for item in first.output if item.type == "function_call"]
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [
        ("read", {"path": "a.txt"}),
        ("read", {"path": "b.txt"}),
    ]
    assert first.status == "completed" and first.usage is not None
    assert first.usage.input_tokens > 0 and first.usage.output_tokens > 0
    history: list[Any] = [
        {"role": "user", "content": "Read the two files"},
        *[item.to_dict() for item in first.output],
        *_answer_calls(first.output, "SENTINEL-ONE-1"),
    ]
    second = client.responses.create(model="gpt-4.1-mini", input=history, tools=TOOLS, store=False)
    # fill repeats the tool result, never invents one
    assert second.output_text == "The file says SENTINEL-ONE-1"
    assert not [item for item in second.output if item.type == "function_call"]


def test_streams_parse_in_the_sdk_and_every_event_validates(
    sim: SimulatorServer, client: openai.OpenAI
) -> None:
    with client.responses.stream(
        model="gpt-4.1-mini", input="Read the two files", tools=TOOLS, store=False
    ) as stream:
        events = list(stream)
        final = stream.get_final_response()
    assert [c.arguments for c in final.output if c.type == "function_call"] == [
        '{"path": "a.txt"}',
        '{"path": "b.txt"}',
    ]
    raw = [e.to_dict() for e in events]
    for event in raw:
        EVENTS.validate_python(event)
    assert [e["sequence_number"] for e in raw] == list(range(len(raw)))
    assert raw[-1]["type"] == "response.completed"
    deltas = "".join(
        e["delta"] for e in raw if e["type"] == "response.function_call_arguments.delta"
    )
    assert deltas == '{"path": "a.txt"}{"path": "b.txt"}'

    plain = client.responses.create(model="gpt-4.1-mini", input="say hi", stream=True, store=False)
    text = "".join(e.delta for e in plain if e.type == "response.output_text.delta")
    assert text == "Hello from the simulator."


def test_async_client_json_and_stream(sim: SimulatorServer) -> None:
    async def run() -> tuple[str, str]:
        async with openai.AsyncOpenAI(
            api_key="sk-sim-unused", base_url=f"{sim.url}/v1", max_retries=0
        ) as client:
            plain = await client.responses.create(model="gpt-4.1-mini", input="hi", store=False)
            stream = await client.responses.create(
                model="gpt-4.1-mini", input="hi again", stream=True, store=False
            )
            pieces = [e.delta async for e in stream if e.type == "response.output_text.delta"]
            return plain.output_text, "".join(pieces)

    plain, streamed = asyncio.run(run())
    assert plain == streamed == "Hello from the simulator."


def test_reasoning_items_are_encrypted_and_must_come_back_whole(
    sim: SimulatorServer, client: openai.OpenAI
) -> None:
    first = client.responses.create(
        model="gpt-5-mini",
        input="Read the two files",
        tools=TOOLS,
        store=False,
        reasoning={"effort": "low"},
        include=["reasoning.encrypted_content"],
    )
    reasoning = first.output[0]
    assert reasoning.type == "reasoning" and reasoning.encrypted_content
    assert first.usage is not None and first.usage.output_tokens_details.reasoning_tokens > 0
    outputs = _answer_calls(first.output, "SENTINEL-TWO-2")
    items = [item.to_dict() for item in first.output]
    user: Any = {"role": "user", "content": "Read the two files"}
    ok = client.responses.create(
        model="gpt-5-mini", input=[user, *items, *outputs], tools=TOOLS, store=False
    )
    assert ok.output_text == "The file says SENTINEL-TWO-2"

    stripped = {k: v for k, v in items[0].items() if k != "encrypted_content"}
    with pytest.raises(openai.NotFoundError, match="Items are not persisted"):
        client.responses.create(
            model="gpt-5-mini", input=[user, stripped, *items[1:], *outputs], store=False
        )
    with pytest.raises(openai.BadRequestError, match="without its required following item"):
        client.responses.create(
            model="gpt-5-mini",
            input=[user, items[0], {"role": "assistant", "content": "x"}],
            store=False,
        )


def test_stateless_refusals_have_the_real_shape(
    sim: SimulatorServer, client: openai.OpenAI
) -> None:
    with pytest.raises(openai.BadRequestError) as chained:
        client.responses.create(
            model="gpt-4.1-mini", input="hi", previous_response_id="resp_abc", store=False
        )
    assert chained.value.code == "previous_response_not_found"
    with pytest.raises(openai.BadRequestError, match="No tool call found"):
        client.responses.create(
            model="gpt-4.1-mini",
            input=[{"type": "function_call_output", "call_id": "call_x", "output": "?"}],
        )
    with pytest.raises(openai.BadRequestError, match="No tool output found"):
        client.responses.create(
            model="gpt-4.1-mini",
            input=[
                {"role": "user", "content": "hi"},
                {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
            ],
        )


def test_each_request_logs_one_line(caplog: pytest.LogCaptureFixture) -> None:
    with (
        SimulatorServer(SCRIPT) as server,
        _client(server) as client,
        caplog.at_level(logging.INFO, logger="harness.simulator"),
    ):
        client.responses.create(model="gpt-4.1-mini", input="hi", store=False)
    lines = [r.getMessage() for r in caplog.records if r.name == "harness.simulator"]
    assert lines == ["POST /v1/responses -> 200, answered by turn 1 of 1"], lines
    assert server.requests[-1].path == "/v1/responses"
