"""What the simulator gained for agents that run as their own process: a HEAD probe,
Anthropic thinking blocks, answers shaped to a JSON-output request, a body log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from harness.simulator import SimulatorServer

SCRIPT: dict[str, Any] = {"rules": [{"when": {}, "reply": "The answer is 42."}]}


def test_head_on_the_api_root_says_it_is_up(tmp_path: Path) -> None:
    with SimulatorServer(SCRIPT) as sim:
        assert httpx.head(sim.url + "/").status_code == 200
        assert httpx.head(sim.url + "/api/hello").status_code == 200


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_a_thinking_request_gets_a_thinking_block_first(stream: bool) -> None:
    with SimulatorServer(SCRIPT) as sim:
        client = anthropic.Anthropic(base_url=sim.url, api_key="x", max_retries=0)
        settings: dict[str, Any] = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 2048,
            "thinking": {"type": "enabled", "budget_tokens": 1024},
            "messages": [{"role": "user", "content": "hi"}],
        }
        if stream:
            with client.messages.stream(**settings) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(**settings)
        plain = client.messages.create(**{**settings, "thinking": {"type": "disabled"}})
    kinds = [block.type for block in message.content]
    assert kinds == ["thinking", "text"]
    assert message.content[0].signature  # type: ignore[union-attr]
    assert [block.type for block in plain.content] == ["text"]


def test_a_json_output_request_gets_json_of_its_schema() -> None:
    schema = {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "score": {"type": "integer"}},
        "required": ["answer", "score"],
    }
    with SimulatorServer(SCRIPT) as sim:
        client = openai.OpenAI(base_url=sim.url + "/v1", api_key="x", max_retries=0)
        chat = client.chat.completions.create(
            model="gpt-4.1-mini",
            messages=[{"role": "user", "content": "hi"}],
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "a", "schema": schema, "strict": True},
            },
        )
        loose = client.chat.completions.create(
            model="gpt-4.1-mini",
            messages=[{"role": "user", "content": "hi"}],
            response_format={"type": "json_object"},
        )
        responses = client.responses.create(
            model="gpt-4.1-mini",
            input="hi",
            text={"format": {"type": "json_schema", "name": "a", "schema": schema}},
        )
    assert json.loads(chat.choices[0].message.content or "") == {
        "answer": "The answer is 42.",
        "score": 0,
    }
    assert json.loads(loose.choices[0].message.content or "") == {"text": "The answer is 42."}
    assert json.loads(responses.output_text)["answer"] == "The answer is 42."


def test_request_bodies_are_logged_to_a_file_as_json_lines(tmp_path: Path) -> None:
    log = tmp_path / "bodies.jsonl"
    with SimulatorServer(SCRIPT, log_bodies=log) as sim:
        body = {"model": "gpt-4.1-mini", "messages": [{"role": "user", "content": "hi"}]}
        httpx.post(sim.url + "/v1/chat/completions", json=body)
    (line,) = log.read_text().splitlines()
    assert json.loads(line) == {
        "method": "POST",
        "path": "/v1/chat/completions",
        "status": 200,
        "body": body,
    }
