"""The traffic trace of tool loops run through the real SDKs against the simulator.

Each loop is a plain ``openai`` / ``anthropic`` agent (one ``read_file`` tool),
recorded through ``use_cassette`` from ``harness sim`` on 127.0.0.1; the trace
is read back from the cassette, as ``trace_from_cassette`` does for any user.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.recording import read_cassette, use_cassette
from harness.simulator import SimulatorServer
from harness.testing import HttpExchange, assert_trace_shape, trace_from_cassette
from harness.testing import trace_from_exchanges as from_exchanges
from harness.tracing import TraceTree, outline_text
from harness.traffic import exchanges_from_cassette
from harness.view import build_trace_page, trace_data

SENTINEL = "SENTINEL-TRAFFIC-7731"
SECRET = "sk-test-abcdefghijklmnop0123"
NOTES = f"The release marker is {SENTINEL}."
PROMPT = "What is the release marker in notes.txt?"
SCRIPT = {
    "version": 1,
    "turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        f"The marker is {SENTINEL}.",
    ],
}
SHAPE = """
agent.run
  agent.step
    llm.call
    tool.call read_file
  agent.step
    llm.call
"""
PARAMETERS = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
KEY = "sk-test-simulator0000"


def _openai_loop(url: str, stream: bool) -> list[str]:
    with openai.OpenAI(base_url=url + "/v1", api_key=KEY, max_retries=0) as client:
        return _openai_turns(client, stream)


def _openai_turns(client: openai.OpenAI, stream: bool) -> list[str]:
    tools: Any = [{"type": "function", "function": {"name": "read_file", "parameters": PARAMETERS}}]
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    ids = []
    for _ in range(3):
        request = {"model": "gpt-4.1-mini", "messages": messages, "tools": tools}
        if stream:
            options = {"include_usage": True}  # else the stream carries no token counts
            with client.chat.completions.stream(**request, stream_options=options) as events:
                message = events.get_final_completion().choices[0].message
        else:
            message = client.chat.completions.create(**request).choices[0].message
        if not message.tool_calls:
            return ids
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            ids.append(call.id)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": NOTES})
    raise AssertionError("the loop did not finish")


def _anthropic_loop(url: str, stream: bool, *, is_error: bool = False) -> list[str]:
    with anthropic.Anthropic(base_url=url, api_key=KEY, max_retries=0) as client:
        return _anthropic_turns(client, stream, is_error)


def _anthropic_turns(client: anthropic.Anthropic, stream: bool, is_error: bool) -> list[str]:
    tools: Any = [{"name": "read_file", "input_schema": PARAMETERS}]
    messages: list[Any] = [{"role": "user", "content": PROMPT}]
    ids = []
    for _ in range(3):
        request = {"model": "claude-sonnet-4-6", "max_tokens": 256, "messages": messages}
        if stream:
            with client.messages.stream(**request, tools=tools) as events:
                message = events.get_final_message()
        else:
            message = client.messages.create(**request, tools=tools)
        calls = [block for block in message.content if block.type == "tool_use"]
        if not calls:
            return ids
        messages.append({"role": "assistant", "content": [b.model_dump() for b in message.content]})
        results = []
        for call in calls:
            ids.append(call.id)
            result = {"type": "tool_result", "tool_use_id": call.id, "content": NOTES}
            results.append({**result, "is_error": True} if is_error else result)
        messages.append({"role": "user", "content": results})
    raise AssertionError("the loop did not finish")


LOOPS: dict[str, Callable[..., list[str]]] = {"openai": _openai_loop, "anthropic": _anthropic_loop}


Recorder = Callable[..., tuple[Path, list[str]]]


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Recorder:
    """``record(provider, stream, is_error=False)``: the loop's cassette and the call ids it
    answered, recorded once per module (the tests only read them)."""
    done: dict[tuple[Any, ...], tuple[Path, list[str]]] = {}

    def run(provider: str, stream: bool, **options: Any) -> tuple[Path, list[str]]:
        key = (provider, stream, *sorted(options.items()))
        if key not in done:
            cassette = tmp_path_factory.mktemp("traffic") / "cassette.yaml"
            with SimulatorServer(SCRIPT) as sim, use_cassette(cassette, record_mode="once"):
                done[key] = (cassette, LOOPS[provider](sim.url, stream, **options))
        return done[key]

    return run


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("provider", sorted(LOOPS))
def test_a_raw_sdk_tool_loop_is_a_step_per_request(
    record: Recorder, provider: str, stream: bool
) -> None:
    cassette, ids = record(provider, stream)
    tree = trace_from_cassette(cassette)
    assert_trace_shape(tree, SHAPE)
    first, second = tree.find_all("llm.call")
    assert first.attributes["provider"] == provider
    assert first.attributes["stream"] is stream
    assert first.attributes["tool_calls"][0]["id"] == ids[0]
    assert first.attributes["visible_tools"] == ["read_file"]
    assert first.attributes["input_tokens"] > 0 and first.attributes["output_tokens"] > 0
    assert second.attributes["text_chars"] == len(f"The marker is {SENTINEL}.")
    tool = tree.one("tool.call", "read_file", within="agent.step")
    assert tool.attributes["tool_call_id"] == ids[0]
    assert tool.attributes["observation_chars"] == len(NOTES)
    assert tool.attributes["argument_keys"] == ["path"]
    assert tree.parent(tool) is tree.parent(first)  # in the step that asked for it
    assert first.sequence < tool.sequence < second.sequence
    assert tool.started_at >= first.ended_at and tool.ended_at <= second.started_at


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_an_anthropic_error_result_marks_its_tool_call(record: Recorder, stream: bool) -> None:
    cassette, _ = record("anthropic", stream, is_error=True)
    tree = trace_from_cassette(cassette)
    tool = tree.one("tool.call", status="error")
    assert tool.attributes["is_error"] is True
    assert tool.attributes["status"] == "error"
    assert tree.find_all("tool.call", is_error=False) == []


def test_metadata_keeps_no_text_and_replay_keeps_it_redacted(record: Recorder) -> None:
    cassette, _ = record("openai", False)
    metadata = trace_from_cassette(cassette).to_json()
    assert SENTINEL not in metadata and PROMPT not in metadata and "payload" not in metadata
    replay = trace_from_cassette(cassette, mode="replay")
    assert replay.capture_mode == "replay"
    tool = replay.one("tool.call")
    assert SENTINEL in tool.attributes["payload"]["observation"]
    assert tool.attributes["payload"]["arguments"] == {"path": "notes.txt"}
    call = replay.find_all("llm.call")[0]
    assert call.attributes["tool_calls"][0]["arguments"] == {"path": "notes.txt"}
    assert call.attributes["payload"]["messages"][0]["content"] == PROMPT


def test_replay_payloads_never_hold_a_secret() -> None:
    user = {"role": "user", "content": f"use the key {SECRET}"}
    asked = _asks(("a", "login"))
    result = {"role": "tool", "tool_call_id": "a", "content": f"token={SECRET} ok"}
    done = {"model": "m", "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
    exchanges = [_chat([user], asked), _chat([user, asked["choices"][0]["message"], result], done)]
    replay = from_exchanges(exchanges, mode="replay")
    assert SECRET not in replay.to_json()
    assert "[REDACTED]" in replay.one("tool.call").attributes["payload"]["observation"]


def test_the_trace_mode_comes_from_the_environment(
    record: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette, _ = record("openai", False)
    monkeypatch.setenv("HARNESS_TRACE_MODE", "replay")
    monkeypatch.setenv("HARNESS_TRACE_MAX_PAYLOAD_CHARS", "12")
    tool = trace_from_cassette(cassette).one("tool.call")
    assert tool.attributes["payload"]["observation"].startswith(NOTES[:12])
    assert len(tool.attributes["payload"]["observation"]) < len(NOTES)


def test_other_traffic_is_skipped_and_counted(record: Recorder) -> None:
    cassette, _ = record("openai", False)
    exchanges = exchanges_from_cassette(cassette)
    telemetry = HttpExchange(
        "POST",
        "https://api.openai.com/v1/traces/ingest",
        {"content-type": "application/json"},
        b'{"data": []}',
        204,
        {},
        b"",
    )
    models = HttpExchange("GET", "https://api.openai.com/v1/models", {}, b"", 200, {}, b"{}")
    mixed = [telemetry, exchanges[0], models, exchanges[1]]
    tree = from_exchanges(mixed)
    assert outline_text(tree.root) == outline_text(trace_from_cassette(cassette).root)
    assert tree.root.attributes["other_exchanges"] == 2
    assert [c.attributes["exchange_index"] for c in tree.find_all("llm.call")] == [1, 3]


def test_encoded_bodies_are_decoded(record: Recorder) -> None:
    cassette, _ = record("anthropic", True)
    plain = exchanges_from_cassette(cassette)
    encoded = [
        HttpExchange(
            e.method,
            e.url,
            {**e.request_headers, "Content-Encoding": "gzip"},
            gzip.compress(e.request_body),
            e.status,
            {**e.response_headers, "Content-Encoding": "gzip"},
            gzip.compress(e.response_body),
        )
        for e in plain
    ]
    assert outline_text(from_exchanges(encoded).root) == outline_text(from_exchanges(plain).root)
    assert from_exchanges(encoded).one("tool.call").attributes["observation_chars"] == len(NOTES)


def _chat(messages: list[Any], answer: dict[str, Any], status: int = 200) -> HttpExchange:
    body = {"model": "gpt-4.1-mini", "messages": messages}
    return HttpExchange(
        "POST",
        "http://127.0.0.1:9/v1/chat/completions",
        {"content-type": "application/json"},
        json.dumps(body).encode(),
        status,
        {"content-type": "application/json"},
        json.dumps(answer).encode(),
    )


def _asks(*calls: tuple[str, str]) -> dict[str, Any]:
    tool_calls = [
        {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}} for i, n in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return {"model": "m", "choices": [{"message": message, "finish_reason": "tool_calls"}]}


def test_a_call_the_agent_never_answered_has_no_tool_call() -> None:
    user = {"role": "user", "content": "go"}
    asked = _asks(("a", "first"), ("b", "second"))
    answered = [user, asked["choices"][0]["message"], {"role": "tool", "tool_call_id": "a"}]
    done = {"model": "m", "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
    tree = from_exchanges([_chat([user], asked), _chat(answered, done)])
    assert_trace_shape(tree, "agent.run\n  agent.step\n    llm.call\n    tool.call first\n"
                       "  agent.step\n    llm.call")  # fmt: skip
    assert tree.find_all("llm.call")[0].attributes["tool_call_count"] == 2


def test_a_server_error_without_json_is_an_error_step() -> None:
    user = {"role": "user", "content": "go"}
    request = json.dumps({"model": "m", "messages": [user]}).encode()
    url = "https://api.openai.com/v1/chat/completions"
    failed = HttpExchange("POST", url, {}, request, 502, {}, b"<html>Bad gateway</html>")
    done = {"model": "m", "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
    tree = from_exchanges([failed, _chat([user], done)])
    error = tree.one("llm.call", status="error")
    assert error.attributes["error_type"] == "http_502"
    assert "Bad gateway" in error.attributes["error_message"]
    assert tree.root.attributes["stop_reason"] == "stop"  # the retry answered
    assert len(tree.find_all("agent.step")) == 2


def test_the_same_traffic_gives_the_same_trace(record: Recorder) -> None:
    cassette, _ = record("openai", True)
    first, second = trace_from_cassette(cassette), trace_from_cassette(cassette)
    assert first == second and first.trace_id == second.trace_id
    assert TraceTree.from_json(first.to_json()) == first
    assert first.root.attributes["timing"] == "synthetic"
    recorded = read_cassette(cassette).metadata
    assert recorded is not None and first.created_at[:19] == recorded.recorded_at[:19]


@pytest.mark.deep
def test_the_viewer_shows_a_traffic_trace(record: Recorder, tmp_path: Path) -> None:
    cassette, _ = record("anthropic", False)
    tree = trace_from_cassette(cassette)
    data = trace_data(tree, source=str(cassette))
    assert [s["k"] for s in data["spans"]] == [s.kind for s in tree.walk()]
    assert data["errors"] == 0 and data["total_ms"] > 0
    page = build_trace_page([tree])
    assert tree.trace_id in page and "tool.call" in page
    trace_file = tmp_path / "traffic.json"
    trace_file.write_text(tree.to_json(), "utf-8")
    output = tmp_path / "view.html"
    done = subprocess.run(
        [sys.executable, "-m", "harness", "view", str(trace_file), "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert tree.trace_id in output.read_text("utf-8")


@pytest.mark.deep
@settings(max_examples=60, deadline=None)
@given(
    plan=st.lists(st.integers(min_value=1, max_value=3), max_size=4),
    data=st.data(),
)
def test_any_tool_loop_places_each_result_in_the_step_that_asked(
    plan: list[int], data: st.DataObject
) -> None:
    """A Chat Completions loop of ``plan`` tool-calling steps then an answer, the
    results sent back in any order, telemetry in between: one step per request,
    each answered call a tool.call of its asking step, in the order it was asked."""
    messages: list[Any] = [{"role": "user", "content": "go"}]
    exchanges, expected = [], ["agent.run"]
    for step, count in enumerate(plan):
        calls = [(f"c{step}-{i}", f"tool{i}") for i in range(count)]
        answer = _asks(*calls)
        exchanges.append(_chat(list(messages), answer))
        expected += ["  agent.step", "    llm.call", *(f"    tool.call {n}" for _, n in calls)]
        messages.append(answer["choices"][0]["message"])
        for call_id, _ in data.draw(st.permutations(calls)):
            messages.append({"role": "tool", "tool_call_id": call_id, "content": call_id})
        if data.draw(st.booleans()):
            exchanges.append(
                HttpExchange("POST", "https://x/v1/traces/ingest", {}, b"", 204, {}, b"")
            )
    done = {"model": "m", "choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}]}
    exchanges.append(_chat(messages, done))
    expected += ["  agent.step", "    llm.call"]
    tree = from_exchanges(exchanges)
    assert outline_text(tree.root) == "\n".join(expected)
    for tool in tree.find_all("tool.call"):
        step, index = tool.attributes["tool_call_id"][1:].split("-")
        assert tool.attributes["tool_call_index"] == int(index)
        assert tree.parent(tool) is tree.find_all("agent.step")[int(step)]
        assert tool.attributes["observation_chars"] == len(tool.attributes["tool_call_id"])
