"""The simulator: scripted answers, real wire shapes, and real validation errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from harness.core import ConfigurationError
from harness.simulator import Script, SimulatorServer, load_script
from tests.recording.helpers import anthropic_client, openai_client

TOOL_CALL = {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{}"}}


def post(sim: SimulatorServer, path: str, body: Any) -> httpx2.Response:
    """POST raw JSON to the simulator (no SDK in between)."""
    with httpx2.Client(base_url=sim.url) as client:
        return client.post(path, json=body, headers={"anthropic-version": "2023-06-01"})


@pytest.mark.parametrize(
    ("messages", "message", "param"),
    [
        pytest.param(
            [
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "call_9", "content": "x"},
            ],
            "messages with role 'tool' must be a response to a preceeding message with "
            "'tool_calls'",
            "messages.[1].role",
            id="dangling-tool-result",
        ),
        pytest.param(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "tool_calls": [TOOL_CALL]},
                {"role": "user", "content": "go on"},
            ],
            "did not have response messages: call_1",
            "messages.[1].role",
            id="unanswered-tool-call",
        ),
        pytest.param([], "empty array", "messages", id="no-messages"),
    ],
)
def test_openai_validation_errors_have_the_real_shape(
    sim: SimulatorServer, messages: list[Any], message: str, param: str
) -> None:
    response = post(sim, "/v1/chat/completions", {"model": "gpt-4o", "messages": messages})
    assert response.status_code == 400
    error = response.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert message in error["message"]
    assert (error["type"], error["param"]) == ("invalid_request_error", param)


def test_openai_sdk_raises_bad_request_for_a_dangling_tool_result(sim: SimulatorServer) -> None:
    with openai_client(sim.url) as client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(
            model="gpt-4o",
            messages=[
                {"role": "user", "content": "hi"},
                {"role": "tool", "tool_call_id": "x", "content": "y"},
            ],
        )
    assert caught.value.code is None and caught.value.param == "messages.[1].role"


def _use(id_: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": id_, "name": "read", "input": {}}],
    }


def _result(id_: str) -> dict[str, Any]:
    return {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": id_, "content": "x"}],
    }


@pytest.mark.parametrize(
    ("body", "message"),
    [
        pytest.param(
            {"model": "c", "messages": [{"role": "user", "content": "hi"}]},
            "max_tokens: Field required",
            id="no-max-tokens",
        ),
        pytest.param(
            {"max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]},
            "model: Field required",
            id="no-model",
        ),
        pytest.param(
            {
                "model": "c",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "a"}, {"role": "user", "content": "b"}],
            },
            'multiple "user" roles in a row',
            id="no-alternation",
        ),
        pytest.param(
            {
                "model": "c",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "a"}, _use("toolu_1"), _result("toolu_2")],
            },
            "`tool_use` ids were found without `tool_result` blocks immediately after: toolu_1",
            id="tool-result-id-mismatch",
        ),
        pytest.param(
            {"model": "c", "max_tokens": 5, "messages": [_result("toolu_2")]},
            "unexpected `tool_use_id` found in `tool_result` blocks: toolu_2",
            id="dangling-tool-result",
        ),
    ],
)
def test_anthropic_validation_errors_have_the_real_shape(
    sim: SimulatorServer, body: dict[str, Any], message: str
) -> None:
    response = post(sim, "/v1/messages", body)
    assert response.status_code == 400
    payload = response.json()
    assert payload["type"] == "error" and payload["error"]["type"] == "invalid_request_error"
    assert message in payload["error"]["message"]
    assert "request_id" in payload


def test_echo_sentinels_answers_with_what_the_tools_returned() -> None:
    script = {"rules": [{"kind": "echo_sentinels"}], "turns": ["no sentinels yet"]}
    messages = [
        {"role": "user", "content": "explore"},
        {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "SENTINEL-X1 and SENTINEL-Y2-Z, SENTINEL-X1",
        },
    ]
    with SimulatorServer(script) as sim, openai_client(sim.url) as client:
        first = client.chat.completions.create(model="gpt-4o", messages=messages[:1])
        echoed = client.chat.completions.create(model="gpt-4o", messages=messages)
    assert first.choices[0].message.content == "no sentinels yet"
    assert echoed.choices[0].message.content == "Sentinels found: SENTINEL-X1, SENTINEL-Y2-Z"


def test_rules_react_to_tool_results_and_usage_is_realistic() -> None:
    script = {
        "rules": [{"when": {"last_tool_result_contains": "denied"}, "reply": "I cannot read it."}],
        "turns": [{"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]}],
    }
    with SimulatorServer(script) as sim, anthropic_client(sim.url) as client:
        first = client.messages.create(
            model="claude-harness-test",
            max_tokens=50,
            messages=[{"role": "user", "content": "read x " * 40}],
        )
        use = first.content[0]
        assert (
            use.type == "tool_use"
            and use.input == {"path": "x"}
            and first.stop_reason == "tool_use"
        )
        second = client.messages.create(
            model="claude-harness-test",
            max_tokens=50,
            messages=[
                {"role": "user", "content": "read x " * 40},
                _use(use.id) | {"content": [use.model_dump()]},
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": use.id,
                            "content": "permission denied",
                        }
                    ],
                },
            ],
        )
    assert second.content[0].type == "text" and second.content[0].text == "I cannot read it."
    assert 60 < first.usage.input_tokens < 120 and first.usage.output_tokens > 0
    assert second.usage.input_tokens > first.usage.input_tokens


def test_exhausted_script_and_error_replies(sim: SimulatorServer) -> None:
    with SimulatorServer(
        {"turns": [{"error": {"status": 529, "message": "Overloaded"}}]}
    ) as server:
        with (
            anthropic_client(server.url) as client,
            pytest.raises(anthropic.APIStatusError) as caught,
        ):
            client.messages.create(
                model="claude-harness-test",
                max_tokens=5,
                messages=[{"role": "user", "content": "a"}],
            )
        body = caught.value.body
        assert caught.value.status_code == 529
        assert isinstance(body, dict) and body["error"]["type"] == "overloaded_error"
        with (
            anthropic_client(server.url) as client,
            pytest.raises(anthropic.BadRequestError, match="no scripted turn"),
        ):
            client.messages.create(
                model="claude-harness-test",
                max_tokens=5,
                messages=[{"role": "user", "content": "a"}],
            )
    assert server.hits == 2 and [r.status for r in server.requests] == [529, 400]


def _sse(response: httpx2.Response) -> list[tuple[str | None, Any]]:
    events: list[tuple[str | None, Any]] = []
    name = None
    for line in response.text.splitlines():
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            data = line[6:]
            events.append((name, data if data == "[DONE]" else json.loads(data)))
            name = None
    return events


def test_stream_event_shapes() -> None:
    script = {
        "turns": [
            {"text": "Hi there", "tool_calls": [{"name": "read", "arguments": {"path": "a"}}]}
        ],
        "when_exhausted": "repeat_last",
    }
    with SimulatorServer(script) as sim:
        anthropic_events = _sse(
            post(
                sim,
                "/v1/messages",
                {
                    "model": "c",
                    "max_tokens": 9,
                    "stream": True,
                    "messages": [{"role": "user", "content": "a"}],
                },
            )
        )
        openai_events = _sse(
            post(
                sim,
                "/v1/chat/completions",
                {
                    "model": "g",
                    "stream": True,
                    "stream_options": {"include_usage": True},
                    "messages": [{"role": "user", "content": "a"}],
                },
            )
        )
    names = [name for name, _ in anthropic_events]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    assert anthropic_events[-2][1]["delta"]["stop_reason"] == "tool_use"
    assert openai_events[-1] == (None, "[DONE]")
    assert (
        openai_events[-2][1]["choices"] == [] and openai_events[-2][1]["usage"]["total_tokens"] > 0
    )
    assert openai_events[-3][1]["choices"][0]["finish_reason"] == "tool_calls"


def test_scripts_load_from_yaml_and_bad_ones_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text(
        "version: 1\nturns:\n  - hello\n  - tool_calls: [{name: read}]\n"
        "rules:\n  - kind: echo_sentinels\n"
    )
    script = load_script(path)
    assert isinstance(script, Script) and script.turns[0].text == "hello"
    path.write_text("version: 1\nturns:\n  - {}\n")
    with pytest.raises(ConfigurationError, match="needs text, tool_calls or error"):
        load_script(path)
    with pytest.raises(ConfigurationError, match="cannot read"):
        load_script(tmp_path / "missing.yaml")


@pytest.mark.parametrize(
    ("script", "where"),
    [
        pytest.param(
            {"rules": [{"when": {"nope": 1}, "reply": "x"}]}, "rules.0.when.nope", id="reply-when"
        ),
        pytest.param(
            {"rules": [{"kind": "echo_sentinels", "when": {"bad": 1}}]},
            "rules.0.when.bad",
            id="echo-when",
        ),
        pytest.param(
            {"rules": [{"reply": {"tool_calls": [{"nam": "read"}]}}]},
            "rules.0.reply.tool_calls.0.name",
            id="reply-reply",
        ),
        pytest.param({"rules": [{"kind": "judge", "judge": 1}]}, "rules.0.judge", id="judge-field"),
        pytest.param({"turns": ["ok", {"texx": "a"}]}, "turns.1.texx", id="turn"),
    ],
)
def test_schema_errors_name_the_field_as_the_script_spells_it(
    script: dict[str, Any], where: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        load_script(script)
    message = str(caught.value)
    assert f": {where}: " in message, message
    assert ".reply.when" not in message and ".echo_sentinels." not in message
    assert "Value error" not in message


@given(
    kind=st.sampled_from(["reply", "echo_sentinels", "judge", None]),
    field=st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True),
    before=st.integers(min_value=0, max_value=3),
)
def test_an_unknown_rule_field_is_located_at_its_rule(
    kind: str | None, field: str, before: int
) -> None:
    valid = {"kind": "echo_sentinels"}
    rule: dict[str, Any] = {"reply": "ok"} if kind in ("reply", None) else {}
    if kind is not None:
        rule["kind"] = kind
    assume(field not in {"kind", "when", "reply", "fill", "pattern", "template"})
    rule[field] = 1
    with pytest.raises(ConfigurationError) as caught:
        load_script({"rules": [*([valid] * before), rule]})
    assert f"(script): rules.{before}.{field}: " in str(caught.value)


@pytest.mark.deep
def test_module_entry_point_serves_a_script(tmp_path: Path) -> None:
    path = tmp_path / "script.yaml"
    path.write_text("version: 1\nturns: [pong]\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "harness.simulator", "--script", str(path), "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        with httpx2.Client(base_url=url) as client:
            reply = client.post(
                "/v1/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "ping"}]},
            )
        assert reply.json()["choices"][0]["message"]["content"] == "pong"
        assert reply.headers["x-harness-simulator"] == "1"
    finally:
        process.terminate()
        process.communicate(timeout=10)


@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_a_refusal_reaches_the_run_as_the_simulators_own_reason(
    provider_name: str, tmp_path: Path
) -> None:
    from harness import Settings, build_application
    from harness.providers import AnthropicProvider, OpenAIProvider

    with SimulatorServer({"turns": []}) as server:
        # A dummy key as short as "x" must not be redacted out of the reason's words.
        provider = (
            OpenAIProvider("m", api_key="x", base_url=f"{server.url}/v1", max_retries=0)
            if provider_name == "openai"
            else AnthropicProvider("m", api_key="x", base_url=server.url, max_retries=0)
        )
        settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state")
        result = build_application(settings, provider=provider).run("hello")
    assert result.stop_reason == "provider_error"
    error = result.error or ""
    label = "OpenAI" if provider_name == "openai" else "Anthropic"
    assert error.startswith(f"The harness simulator (as the {label} API) returned HTTP 400")
    assert "no scripted turn left for this request" in error
    assert "when_exhausted: repeat_last" in error and "[redacted]" not in error
    assert "change the script" in error and "check the model name" not in error
