"""Responses API traffic in the cassette layer: record, replay, miss diff, layouts, mutants.

Recorded from the simulator through ``OpenAIResponsesProvider`` and the real SDK;
replayed offline; a request that drifted names the input item that changed; a
pydantic-ai ``parsed_body`` cassette replays; the mutant engine decodes
Responses cassettes (JSON and SSE) into the sequence its operators perturb.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from harness.core import CassetteError, LLMRequest, LLMResponse, Message, ToolCall
from harness.evals.mutations import derive_mutants
from harness.evals.recorded_responses import read_recorded_responses
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
from harness.wires.openai_responses.provider import OpenAIResponsesProvider

KEY = "sk-test-RESPONSES0001"
SCRIPT = {
    "version": 1,
    "turns": [
        {
            "tool_calls": [
                {"name": "read", "arguments": {"path": "a.txt"}},
                {"name": "read", "arguments": {"path": "b.txt"}},
            ]
        },
        "a and b say SENTINEL-AB-42",
    ],
}


def _conversation(prompt: str, first: LLMResponse | None = None) -> LLMRequest:
    messages = [Message.system("be brief"), Message.user(prompt)]
    if first is not None:
        messages.append(Message.assistant(first.text, first.tool_calls, first.metadata))
        messages += [Message.tool(call.id, f"contents of {call.id}") for call in first.tool_calls]
    return LLMRequest(messages=tuple(messages))


def _record(cassette: Path, stream: bool) -> list[LLMResponse]:
    with SimulatorServer(SCRIPT) as server, use_cassette(cassette, record_mode="once"):
        provider = OpenAIResponsesProvider(
            "gpt-4.1-mini", api_key=KEY, base_url=f"{server.url}/v1", stream=stream
        )
        with provider:
            first = provider.complete(_conversation("read a and b"))
            second = provider.complete(_conversation("read a and b", first))
    return [first, second]


def _replay(cassette: Path, prompt: str, stream: bool) -> list[LLMResponse]:
    with use_cassette(cassette):
        provider = OpenAIResponsesProvider("gpt-4.1-mini", api_key=KEY, stream=stream)
        with provider:
            first = provider.complete(_conversation(prompt))
            return [first, provider.complete(_conversation(prompt, first))]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_record_replay_and_the_miss_diff_over_input_items(tmp_path: Path, stream: bool) -> None:
    cassette = tmp_path / "run.yaml"
    recorded = _record(cassette, stream)
    text = cassette.read_text("utf-8")
    assert KEY not in text and "/v1/responses" in text
    assert yaml.safe_load(text)["harness"]["provider"] == "openai-responses"
    assert _replay(cassette, "read a and b", stream) == recorded
    with pytest.raises(CassetteError) as missed:
        _replay(cassette, "read c and d", stream)
    assert "input[0].content: 'read a and b' -> 'read c and d'" in str(missed.value)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_mutants_decode_responses_cassettes(tmp_path: Path, stream: bool) -> None:
    cassette = tmp_path / "run.yaml"
    recorded = _record(cassette, stream)
    decoded = read_recorded_responses(cassette, "openai-responses")
    assert list(decoded) == recorded
    operators = {mutant.operator for mutant in derive_mutants(decoded)}
    assert {"drop_call", "swap_calls", "corrupt_arg", "alter_marker", "refuse"} <= operators
    assert {"stop_early", "repeat_call", "drop_marker"} <= operators


def test_a_parsed_body_cassette_replays(tmp_path: Path) -> None:
    """pydantic-ai stores JSON bodies as YAML structures under ``parsed_body``."""
    request = {
        "include": ["reasoning.encrypted_content"],
        "input": [{"role": "user", "content": "hi"}],
        "model": "gpt-4.1-mini",
        "store": False,
    }
    answer = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "completed",
        "model": "gpt-4.1-mini",
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "read",
                "arguments": '{"path": "x"}',
            }
        ],
        "usage": {"input_tokens": 5, "output_tokens": 3},
    }
    cassette = tmp_path / "pydantic.yaml"
    item = {
        "request": {
            "method": "POST",
            "uri": "https://api.openai.com/v1/responses",
            "headers": {"content-length": ["999"]},
            "parsed_body": request,
        },
        "response": {
            "status": {"code": 200, "message": "OK"},
            "headers": {"content-type": ["application/json"], "content-length": ["1"]},
            "parsed_body": answer,
        },
    }
    cassette.write_text(yaml.safe_dump({"interactions": [item], "version": 1}), "utf-8")
    with use_cassette(cassette):
        provider = OpenAIResponsesProvider("gpt-4.1-mini", api_key=KEY)
        with provider:
            got = provider.complete(LLMRequest(messages=(Message.user("hi"),)))
    assert got.tool_calls == (ToolCall(id="call_1", name="read", arguments={"path": "x"}),)
    assert got.usage.input_tokens == 5 and json.loads(json.dumps(got.metadata)) == {}
