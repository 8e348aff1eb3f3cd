"""OpenAIProvider against the real ``openai`` SDK over loopback HTTP."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import openai
import pytest

from harness.core import (
    ConfigurationError,
    LLMRequest,
    Message,
    ProviderError,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)
from harness.core.messages import Role
from harness.providers import LLMProvider
from harness.providers.credentials import LOOPBACK_PLACEHOLDER_KEY
from harness.wires.openai.provider import RAW_ARGUMENTS_KEY, OpenAIProvider

READ = ToolDefinition(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)


def ask(*messages: Message, **fields: Any) -> LLMRequest:
    return LLMRequest(messages=messages or (Message.user("hi"),), **fields)


def completion(
    content: str | None = "ok",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str = "stop",
    cached: int = 0,
    refusal: str | None = None,
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": refusal}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-test-2026",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {
            "prompt_tokens": 30,
            "completion_tokens": 7,
            "total_tokens": 37,
            "prompt_tokens_details": {"cached_tokens": cached},
        },
    }


def function_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> str:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    body = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1}
    body |= {"model": "gpt-test-2026", "choices": choices, **extra}
    return f"data: {json.dumps(body)}\n\n"


def fragment(
    index: int, arguments: str, call_id: str | None = None, name: str | None = None
) -> dict[str, Any]:
    function = {"arguments": arguments} | ({"name": name} if name else {})
    call = {"index": index, "function": function}
    return call | ({"id": call_id, "type": "function"} if call_id else {})


@pytest.fixture
def provider(loopback: Any, fake_key: str) -> Iterator[OpenAIProvider]:
    with OpenAIProvider(
        "gpt-test", api_key=fake_key, base_url=f"{loopback.url}/v1", max_retries=0
    ) as provider:
        yield provider


# --- request mapping ----------------------------------------------------------------------


def test_messages_map_to_chat_roles(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add_json(completion())
    call = ToolCall(id="call_1", name="read", arguments={"path": "a.txt"})
    provider.complete(
        ask(
            Message.system("be brief"),
            Message.user("read a.txt"),
            Message.assistant("", tool_calls=(call,)),
            Message.tool("call_1", "hello"),
            Message.assistant("done"),
        )
    )
    assert loopback.last_json()["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "read a.txt"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path":"a.txt"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
        {"role": "assistant", "content": "done"},
    ]


def test_tools_map_to_function_tools(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add_json(completion())
    provider.complete(ask(tools=(READ,)))
    sent = loopback.last_json()
    assert sent["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "read",
                "description": "Read a file.",
                "parameters": READ.parameters,
            },
        }
    ]
    assert sent["tool_choice"] == "auto"


@pytest.mark.parametrize("choice", list(ToolChoice), ids=str)
def test_tool_choice_goes_on_the_wire(
    loopback: Any, provider: OpenAIProvider, choice: ToolChoice
) -> None:
    loopback.add_json(completion())
    provider.complete(ask(tools=(READ,), tool_choice=choice))
    assert loopback.last_json()["tool_choice"] == choice.value


def test_no_tools_sends_neither_tools_nor_tool_choice(
    loopback: Any, provider: OpenAIProvider
) -> None:
    loopback.add_json(completion())
    provider.complete(ask(tool_choice=ToolChoice.REQUIRED))
    assert loopback.last_json().keys() == {"model", "messages"}


@pytest.mark.parametrize(
    ("default", "requested", "param", "expected"),
    [
        (None, None, "max_completion_tokens", {}),
        (256, None, "max_completion_tokens", {"max_completion_tokens": 256}),
        (256, 64, "max_completion_tokens", {"max_completion_tokens": 64}),
        (None, 64, "max_tokens", {"max_tokens": 64}),
    ],
    ids=["no-cap", "provider-default", "request-wins", "legacy-param"],
)
def test_token_cap(
    loopback: Any, fake_key: str, default: Any, requested: Any, param: Any, expected: Any
) -> None:
    loopback.add_json(completion())
    with OpenAIProvider(
        "gpt-test",
        api_key=fake_key,
        base_url=f"{loopback.url}/v1",
        default_max_tokens=default,
        max_tokens_param=param,
    ) as provider:
        provider.complete(ask(max_tokens=requested))
    sent = loopback.last_json()
    caps = {k: sent[k] for k in ("max_completion_tokens", "max_tokens") if k in sent}
    assert caps == expected


def test_request_model_overrides_the_provider_model(
    loopback: Any, provider: OpenAIProvider
) -> None:
    loopback.add_json(completion())
    provider.complete(ask(model="gpt-other"))
    assert loopback.last_json()["model"] == "gpt-other"
    assert loopback.requests[0].path == "/v1/chat/completions"


def test_tool_message_without_call_id_is_a_provider_error(provider: OpenAIProvider) -> None:
    with pytest.raises(ProviderError, match="tool_call_id"):
        provider.complete(ask(Message(role=Role.TOOL, content="orphan")))


def test_invalid_arguments_are_replayed_verbatim(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add_json(completion())
    call = ToolCall(id="call_1", name="read", arguments={RAW_ARGUMENTS_KEY: '{"path": "a'})
    provider.complete(ask(Message.user("x"), Message.assistant(tool_calls=(call,))))
    sent_call = loopback.last_json()["messages"][1]["tool_calls"][0]
    assert sent_call["function"]["arguments"] == '{"path": "a'


# --- response mapping ---------------------------------------------------------------------


def test_text_usage_and_stop_reason(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add_json(completion("Paris.", cached=12))
    response = provider.complete(ask())
    assert response.text == "Paris."
    assert response.tool_calls == ()
    assert (response.usage.input_tokens, response.usage.output_tokens) == (30, 7)
    assert response.usage.cached_input_tokens == 12
    assert response.stop_reason == "stop"
    assert (response.model, response.raw_id) == ("gpt-test-2026", "chatcmpl-1")


def test_tool_call_arguments_are_parsed(loopback: Any, provider: OpenAIProvider) -> None:
    calls = [function_call("call_a", "read", '{"path": "a.txt", "limit": 5}')]
    loopback.add_json(completion(None, tool_calls=calls, finish_reason="tool_calls"))
    response = provider.complete(ask(tools=(READ,)))
    assert response.tool_calls == (
        ToolCall(id="call_a", name="read", arguments={"path": "a.txt", "limit": 5}),
    )
    assert response.text == ""
    assert response.stop_reason == "tool_calls"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('{"path": "a', {RAW_ARGUMENTS_KEY: '{"path": "a'}),
        ("[1, 2]", {RAW_ARGUMENTS_KEY: "[1, 2]"}),
        ("null", {RAW_ARGUMENTS_KEY: "null"}),
        ("", {}),
    ],
    ids=["truncated-json", "json-list", "json-null", "empty"],
)
def test_malformed_arguments_never_crash(
    loopback: Any, provider: OpenAIProvider, raw: str, expected: dict[str, Any]
) -> None:
    loopback.add_json(completion(None, tool_calls=[function_call("c", "read", raw)]))
    response = provider.complete(ask(tools=(READ,)))
    assert response.tool_calls[0].arguments == expected


def test_refusal_becomes_the_text(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add_json(completion(None, refusal="I can't help with that."))
    assert provider.complete(ask()).text == "I can't help with that."


def test_completion_without_choices_is_a_provider_error(
    loopback: Any, provider: OpenAIProvider
) -> None:
    loopback.add_json(completion() | {"choices": []})
    with pytest.raises(ProviderError, match="without choices"):
        provider.complete(ask())


# --- streaming ----------------------------------------------------------------------------


@pytest.fixture
def streaming(loopback: Any, fake_key: str) -> Iterator[OpenAIProvider]:
    with OpenAIProvider(
        "gpt-test", api_key=fake_key, base_url=f"{loopback.url}/v1", max_retries=0, stream=True
    ) as provider:
        yield provider


def test_stream_assembles_text_tool_calls_and_usage(
    loopback: Any, streaming: OpenAIProvider
) -> None:
    usage: dict[str, Any] = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    usage["prompt_tokens_details"] = {"cached_tokens": 32}
    loopback.add_sse(
        chunk({"role": "assistant", "content": "Let me "})
        + chunk({"content": "look."})
        + chunk({"tool_calls": [fragment(0, "", "call_a", "read")]})
        + chunk({"tool_calls": [fragment(0, '{"path": '), fragment(1, "", "call_b", "read")]})
        + chunk({"tool_calls": [fragment(1, '{"path": "b"}')]})
        + chunk({"tool_calls": [fragment(0, '"a"}')]})
        + chunk({}, finish="tool_calls")
        + chunk(None, usage=usage)
        + "data: [DONE]\n\n",
        chunk_size=13,
    )
    response = streaming.complete(ask(tools=(READ,)))
    assert response.text == "Let me look."
    assert response.tool_calls == (
        ToolCall(id="call_a", name="read", arguments={"path": "a"}),
        ToolCall(id="call_b", name="read", arguments={"path": "b"}),
    )
    assert (response.usage.input_tokens, response.usage.output_tokens) == (40, 9)
    assert response.usage.cached_input_tokens == 32
    assert (response.stop_reason, response.raw_id) == ("tool_calls", "chatcmpl-s")
    sent = loopback.last_json()
    assert (sent["stream"], sent["stream_options"]) == (True, {"include_usage": True})


def test_stream_keeps_malformed_arguments_raw(loopback: Any, streaming: OpenAIProvider) -> None:
    loopback.add_sse(
        chunk({"tool_calls": [fragment(0, '{"path": ', "call_a", "read")]}, finish="length")
        + "data: [DONE]\n\n"
    )
    response = streaming.complete(ask(tools=(READ,)))
    assert response.tool_calls[0].arguments == {RAW_ARGUMENTS_KEY: '{"path": '}
    assert response.usage.total_tokens == 0  # a stream cut short may carry no usage


def test_stream_error_event_is_a_provider_error(loopback: Any, streaming: OpenAIProvider) -> None:
    error = {"error": {"message": "The server had an error", "type": "server_error"}}
    loopback.add_sse(chunk({"content": "Hel"}) + f"data: {json.dumps(error)}\n\n")
    with pytest.raises(ProviderError, match="inside the response stream") as caught:
        streaming.complete(ask())
    assert "(server_error): The server had an error" in str(caught.value)
    assert (caught.value.provider, caught.value.status_code) == ("openai", None)


def test_empty_stream_is_a_provider_error(loopback: Any, streaming: OpenAIProvider) -> None:
    loopback.add_sse("data: [DONE]\n\n")
    with pytest.raises(ProviderError, match="before any chunk"):
        streaming.complete(ask())


def test_stream_cut_off_is_a_provider_error(loopback: Any, streaming: OpenAIProvider) -> None:
    body = (chunk({"content": "Hello"}) * 5).encode()
    loopback.add(200, body, content_type="text/event-stream", cut_after=len(body) // 2)
    with pytest.raises(ProviderError, match=r"connection to .* failed") as caught:
        streaming.complete(ask())
    assert caught.value.status_code is None


# --- errors -------------------------------------------------------------------------------


def error_body(
    message: str, kind: str = "invalid_request_error", code: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        (400, "request parameters"),
        (401, "OPENAI_API_KEY"),
        (403, "permissions"),
        (404, "model name"),
        (429, "rate limited"),
        (500, "server-side"),
        (503, "server-side"),
    ],
    ids=lambda value: str(value),
)
def test_status_errors_carry_status_message_and_hint(
    loopback: Any, provider: OpenAIProvider, status: int, hint: str
) -> None:
    loopback.add_json(error_body("Something specific went wrong.", code="x_code"), status=status)
    with pytest.raises(ProviderError) as caught:
        provider.complete(ask())
    message = str(caught.value)
    assert caught.value.status_code == status
    assert caught.value.provider == "openai"
    assert f"OpenAI API returned HTTP {status}" in message
    assert "(invalid_request_error/x_code): Something specific went wrong." in message
    assert hint in message


def test_api_key_never_appears_in_errors_or_logs(
    loopback: Any, provider: OpenAIProvider, fake_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    echoed = f"Incorrect API key provided: {fake_key}. Find your key at the dashboard."
    loopback.add_json(error_body(echoed, code="invalid_api_key"), status=401)
    with pytest.raises(ProviderError) as caught:
        provider.complete(ask())
    assert loopback.requests[0].headers["authorization"] == f"Bearer {fake_key}"
    assert fake_key not in str(caught.value)
    assert "Incorrect API key provided: [redacted]" in str(caught.value)
    assert fake_key not in caplog.text
    assert fake_key not in "".join(traceback.format_exception(caught.value))
    assert fake_key not in repr(provider)


def test_non_json_error_body_is_quoted(loopback: Any, provider: OpenAIProvider) -> None:
    loopback.add(502, b"<html>Bad gateway</html>", content_type="text/html")
    with pytest.raises(ProviderError, match="HTTP 502: <html>Bad gateway</html>") as caught:
        provider.complete(ask())
    assert caught.value.status_code == 502


def test_sdk_retries_transient_errors(loopback: Any, fake_key: str) -> None:
    loopback.add_json(
        error_body("busy", "server_error"), status=500, headers={"retry-after-ms": "1"}
    )
    loopback.add_json(completion("second time lucky"))
    with OpenAIProvider(
        "gpt-test", api_key=fake_key, base_url=f"{loopback.url}/v1", max_retries=1
    ) as provider:
        assert provider.complete(ask()).text == "second time lucky"
    assert len(loopback.requests) == 2


def test_connection_refused_is_a_provider_error(closed_port_url: str, fake_key: str) -> None:
    with (
        OpenAIProvider("gpt-test", api_key=fake_key, base_url=closed_port_url, max_retries=0) as p,
        pytest.raises(ProviderError, match="OPENAI_BASE_URL") as caught,
    ):
        p.complete(ask())
    assert caught.value.status_code is None
    assert closed_port_url in str(caught.value)


def test_timeout_is_a_provider_error(loopback: Any, fake_key: str) -> None:
    loopback.add(200, json.dumps(completion()).encode(), delay=1.0)
    with (
        OpenAIProvider(
            "gpt-test", api_key=fake_key, base_url=f"{loopback.url}/v1", max_retries=0, timeout=0.2
        ) as p,
        pytest.raises(ProviderError, match="timed out"),
    ):
        p.complete(ask())


# --- configuration ------------------------------------------------------------------------


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIProvider("gpt-test")


def test_a_base_url_on_this_machine_needs_no_key(loopback: Any) -> None:
    loopback.add_json(completion())
    with OpenAIProvider("gpt-test", base_url=f"{loopback.url}/v1", max_retries=0) as provider:
        provider.complete(ask())
    assert (
        loopback.requests[0].headers["authorization"].removeprefix("Bearer ")
        == LOOPBACK_PLACEHOLDER_KEY
    )


@pytest.mark.parametrize(
    "url", ["http://localhost:9/v1", "http://[::1]:9/v1", "http://127.8.0.1:9"], ids=str
)
def test_every_loopback_form_needs_no_key(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    OpenAIProvider("gpt-test", base_url=url).close()
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    OpenAIProvider("gpt-test").close()


@pytest.mark.parametrize(
    "url", ["https://api.example.com/v1", "http://10.0.0.1/v1", "http://127.0.0.1.example.com"]
)
def test_a_remote_base_url_still_needs_the_key(url: str) -> None:
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY is not set"):
        OpenAIProvider("gpt-test", base_url=url)


def test_key_and_base_url_come_from_the_environment(
    loopback: Any, fake_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", fake_key)
    monkeypatch.setenv("OPENAI_BASE_URL", f"{loopback.url}/v1")
    loopback.add_json(completion())
    with OpenAIProvider("gpt-test", max_retries=0) as provider:
        provider.complete(ask())
    assert loopback.requests[0].headers["authorization"] == f"Bearer {fake_key}"


def test_a_given_client_is_used_and_left_open(loopback: Any, fake_key: str) -> None:
    client = openai.OpenAI(api_key=fake_key, base_url=f"{loopback.url}/v1", max_retries=0)
    loopback.add_json(completion("via client"))
    with OpenAIProvider("gpt-test", client=client) as provider:
        assert provider.complete(ask()).text == "via client"
    assert not client.is_closed()
    client.close()


def test_provider_satisfies_the_protocol(provider: OpenAIProvider) -> None:
    assert isinstance(provider, LLMProvider)
    assert (provider.name, provider.model) == ("openai", "gpt-test")


def test_importing_providers_does_not_import_the_sdk() -> None:
    code = "import sys, harness.providers; print('openai' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
