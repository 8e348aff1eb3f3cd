"""AnthropicProvider against the real ``anthropic`` SDK over loopback HTTP."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import anthropic
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
from harness.wires.anthropic.provider import RAW_ARGUMENTS_KEY, AnthropicProvider

READ = ToolDefinition(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)


def ask(*messages: Message, **fields: Any) -> LLMRequest:
    return LLMRequest(messages=messages or (Message.user("hi"),), **fields)


def message(*content: dict[str, Any], stop_reason: str = "end_turn", cache_read: int = 0):
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test-2026",
        "content": list(content) or [{"type": "text", "text": "ok"}],
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 30, "output_tokens": 7, "cache_read_input_tokens": cache_read},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments}


def sse(event: str, **data: Any) -> str:
    return f"event: {event}\ndata: {json.dumps({'type': event, **data})}\n\n"


def message_start() -> str:
    start = message() | {"content": [], "stop_reason": None}
    start["usage"] = {"input_tokens": 12, "output_tokens": 1}
    return sse("message_start", message=start)


@pytest.fixture
def provider(loopback: Any, fake_key: str) -> Iterator[AnthropicProvider]:
    with AnthropicProvider(
        "claude-test", api_key=fake_key, base_url=loopback.url, max_retries=0
    ) as provider:
        yield provider


def sent_messages(loopback: Any) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = loopback.last_json()["messages"]
    return messages


def sent_key(loopback: Any) -> str | None:
    # anthropic 2.x sends the key as a bearer token; older SDKs used x-api-key.
    headers = loopback.requests[0].headers
    bearer = headers.get("authorization", "").removeprefix("Bearer ")
    return headers.get("x-api-key") or bearer or None


# --- request mapping ----------------------------------------------------------------------


def test_system_messages_become_the_system_parameter(
    loopback: Any, provider: AnthropicProvider
) -> None:
    loopback.add_json(message())
    provider.complete(
        ask(Message.system("be brief"), Message.system("no jokes"), Message.user("q"))
    )
    sent = loopback.last_json()
    assert sent["system"] == "be brief\n\nno jokes"
    assert sent["messages"] == [{"role": "user", "content": [text("q")]}]
    assert loopback.requests[0].path == "/v1/messages"


def test_no_system_message_sends_no_system(loopback: Any, provider: AnthropicProvider) -> None:
    loopback.add_json(message())
    provider.complete(ask())
    assert "system" not in loopback.last_json()


def test_tool_calls_and_results_become_blocks_in_alternating_turns(
    loopback: Any, provider: AnthropicProvider
) -> None:
    loopback.add_json(message())
    calls = (
        ToolCall(id="toolu_a", name="read", arguments={"path": "a"}),
        ToolCall(id="toolu_b", name="read", arguments={"path": "b"}),
    )
    provider.complete(
        ask(
            Message.user("read both"),
            Message.assistant("Reading.", tool_calls=calls),
            Message.tool("toolu_a", "A"),
            Message.tool("toolu_b", "no such file", metadata={"is_error": True}),
            Message.user("and summarise"),
        )
    )
    assert sent_messages(loopback) == [
        {"role": "user", "content": [text("read both")]},
        {
            "role": "assistant",
            "content": [
                text("Reading."),
                tool_use("toolu_a", "read", {"path": "a"}),
                tool_use("toolu_b", "read", {"path": "b"}),
            ],
        },
        {
            "role": "user",  # both results and the next user text in ONE turn, results first
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_a",
                    "is_error": False,
                    "content": "A",
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_b",
                    "is_error": True,
                    "content": "no such file",
                },
                text("and summarise"),
            ],
        },
    ]


def test_empty_text_is_never_sent(loopback: Any, provider: AnthropicProvider) -> None:
    loopback.add_json(message())
    call = ToolCall(id="toolu_a", name="read", arguments={})
    provider.complete(
        ask(
            Message.user("go"),
            Message.assistant("", tool_calls=(call,)),
            Message.tool("toolu_a", ""),
        )
    )
    assert sent_messages(loopback)[1:] == [
        {"role": "assistant", "content": [tool_use("toolu_a", "read", {})]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": False}],
        },
    ]


def test_tools_map_to_input_schemas(loopback: Any, provider: AnthropicProvider) -> None:
    loopback.add_json(message())
    provider.complete(ask(tools=(READ,)))
    sent = loopback.last_json()
    assert sent["tools"] == [
        {"name": "read", "description": "Read a file.", "input_schema": READ.parameters}
    ]
    assert sent["tool_choice"] == {"type": "auto"}


@pytest.mark.parametrize(
    ("choice", "wire"),
    [(ToolChoice.AUTO, "auto"), (ToolChoice.REQUIRED, "any"), (ToolChoice.NONE, "none")],
    ids=str,
)
def test_tool_choice_goes_on_the_wire(
    loopback: Any, provider: AnthropicProvider, choice: ToolChoice, wire: str
) -> None:
    loopback.add_json(message())
    provider.complete(ask(tools=(READ,), tool_choice=choice))
    assert loopback.last_json()["tool_choice"] == {"type": wire}


def test_no_tools_sends_neither_tools_nor_tool_choice(
    loopback: Any, provider: AnthropicProvider
) -> None:
    loopback.add_json(message())
    provider.complete(ask(tool_choice=ToolChoice.REQUIRED))
    assert loopback.last_json().keys() == {"model", "max_tokens", "messages"}


@pytest.mark.parametrize(
    ("configured", "requested", "expected"),
    [(None, None, 4096), (1000, None, 1000), (1000, 64, 64)],
    ids=["default", "provider", "request-wins"],
)
def test_max_tokens(
    loopback: Any, fake_key: str, configured: Any, requested: Any, expected: int
) -> None:
    loopback.add_json(message())
    extra = {} if configured is None else {"max_tokens": configured}
    with AnthropicProvider("claude-test", api_key=fake_key, base_url=loopback.url, **extra) as p:
        p.complete(ask(max_tokens=requested, model="claude-other"))
    assert loopback.last_json()["max_tokens"] == expected
    assert loopback.last_json()["model"] == "claude-other"


def test_tool_message_without_call_id_is_a_provider_error(provider: AnthropicProvider) -> None:
    with pytest.raises(ProviderError, match="tool_call_id"):
        provider.complete(ask(Message(role=Role.TOOL, content="orphan")))


def test_raw_argument_marker_is_sent_as_an_object(
    loopback: Any, provider: AnthropicProvider
) -> None:
    loopback.add_json(message())
    marker = {RAW_ARGUMENTS_KEY: '{"path": '}
    call = ToolCall(id="toolu_a", name="read", arguments=marker)
    provider.complete(ask(Message.user("go"), Message.assistant(tool_calls=(call,))))
    assert sent_messages(loopback)[1]["content"] == [tool_use("toolu_a", "read", marker)]


# --- response mapping ---------------------------------------------------------------------


def test_text_tool_use_usage_and_stop_reason(loopback: Any, provider: AnthropicProvider) -> None:
    loopback.add_json(
        message(
            {"type": "thinking", "thinking": "hmm", "signature": "sig"},
            text("Let me read "),
            text("it."),
            tool_use("toolu_a", "read", {"path": "a"}),
            stop_reason="tool_use",
            cache_read=20,
        )
    )
    response = provider.complete(ask(tools=(READ,)))
    assert response.text == "Let me read it."
    assert response.tool_calls == (ToolCall(id="toolu_a", name="read", arguments={"path": "a"}),)
    # Anthropic's input_tokens leaves the cache read out; harness counts every prompt token.
    assert (response.usage.input_tokens, response.usage.output_tokens) == (50, 7)
    assert response.usage.cached_input_tokens == 20
    assert (response.stop_reason, response.model, response.raw_id) == (
        "tool_use",
        "claude-test-2026",
        "msg_1",
    )


def test_server_tool_blocks_are_skipped(loopback: Any, provider: AnthropicProvider) -> None:
    loopback.add_json(
        message(
            text("Searching."),
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            text("Found it."),
        )
    )
    response = provider.complete(ask())
    assert response.text == "Searching.\n\nFound it."
    assert response.tool_calls == ()


# --- streaming ----------------------------------------------------------------------------


@pytest.fixture
def streaming(loopback: Any, fake_key: str) -> Iterator[AnthropicProvider]:
    with AnthropicProvider(
        "claude-test", api_key=fake_key, base_url=loopback.url, max_retries=0, stream=True
    ) as provider:
        yield provider


def test_stream_assembles_text_tool_use_and_usage(
    loopback: Any, streaming: AnthropicProvider
) -> None:
    loopback.add_sse(
        message_start()
        + sse("content_block_start", index=0, content_block=text(""))
        + sse("content_block_delta", index=0, delta={"type": "text_delta", "text": "On "})
        + sse("content_block_delta", index=0, delta={"type": "text_delta", "text": "it."})
        + sse("content_block_stop", index=0)
        + sse("content_block_start", index=1, content_block=tool_use("toolu_a", "read", {}))
        + sse(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": '{"pa'},
        )
        + sse(
            "content_block_delta",
            index=1,
            delta={"type": "input_json_delta", "partial_json": 'th": "a"}'},
        )
        + sse("content_block_stop", index=1)
        + sse("message_delta", delta={"stop_reason": "tool_use"}, usage={"output_tokens": 21})
        + sse("message_stop"),
        chunk_size=11,
    )
    response = streaming.complete(ask(tools=(READ,)))
    assert response.text == "On it."
    assert response.tool_calls == (ToolCall(id="toolu_a", name="read", arguments={"path": "a"}),)
    assert (response.usage.input_tokens, response.usage.output_tokens) == (12, 21)
    assert response.stop_reason == "tool_use"
    assert loopback.last_json()["stream"] is True


def test_stream_error_event_keeps_the_error_status(
    loopback: Any, streaming: AnthropicProvider
) -> None:
    error = {"type": "overloaded_error", "message": "Overloaded"}
    loopback.add_sse(message_start() + sse("error", error=error))
    with pytest.raises(ProviderError, match=r"HTTP 529 \(overloaded_error\): Overloaded") as caught:
        streaming.complete(ask())
    assert caught.value.status_code == 529


def test_stream_cut_off_is_a_provider_error(loopback: Any, streaming: AnthropicProvider) -> None:
    body = (message_start() + sse("ping") * 20).encode()
    loopback.add(200, body, content_type="text/event-stream", cut_after=len(body) // 2)
    with pytest.raises(ProviderError, match=r"connection to .* failed") as caught:
        streaming.complete(ask())
    assert caught.value.status_code is None


# --- errors -------------------------------------------------------------------------------


def error_body(message: str, kind: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


@pytest.mark.parametrize(
    ("status", "kind", "hint"),
    [
        (400, "invalid_request_error", "request parameters"),
        (401, "authentication_error", "ANTHROPIC_API_KEY"),
        (404, "not_found_error", "model name"),
        (413, "request_too_large", "too large"),
        (429, "rate_limit_error", "rate limited"),
        (529, "overloaded_error", "server-side"),
    ],
    ids=lambda value: str(value),
)
def test_status_errors_carry_status_message_and_hint(
    loopback: Any, provider: AnthropicProvider, status: int, kind: str, hint: str
) -> None:
    loopback.add_json(error_body("Something specific went wrong.", kind), status=status)
    with pytest.raises(ProviderError) as caught:
        provider.complete(ask())
    message = str(caught.value)
    assert caught.value.status_code == status
    assert caught.value.provider == "anthropic"
    assert (
        f"Anthropic API returned HTTP {status} ({kind}): Something specific went wrong." in message
    )
    assert "[request id req_1]" in message
    assert hint in message


def test_api_key_never_appears_in_errors_or_logs(
    loopback: Any, provider: AnthropicProvider, fake_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    loopback.add_json(
        error_body(f"invalid x-api-key {fake_key}", "authentication_error"), status=401
    )
    with pytest.raises(ProviderError) as caught:
        provider.complete(ask())
    assert sent_key(loopback) == fake_key
    assert fake_key not in str(caught.value)
    assert "invalid x-api-key [redacted]" in str(caught.value)
    assert fake_key not in caplog.text
    assert fake_key not in "".join(traceback.format_exception(caught.value))
    assert fake_key not in repr(provider)


def test_sdk_retries_overloaded_errors(loopback: Any, fake_key: str) -> None:
    overloaded = error_body("Overloaded", "overloaded_error")
    loopback.add_json(overloaded, status=529, headers={"retry-after-ms": "1"})
    loopback.add_json(message(text("second time lucky")))
    with AnthropicProvider(
        "claude-test", api_key=fake_key, base_url=loopback.url, max_retries=1
    ) as provider:
        assert provider.complete(ask()).text == "second time lucky"
    assert len(loopback.requests) == 2


def test_connection_refused_is_a_provider_error(closed_port_url: str, fake_key: str) -> None:
    with (
        AnthropicProvider(
            "claude-test", api_key=fake_key, base_url=closed_port_url, max_retries=0
        ) as p,
        pytest.raises(ProviderError, match="ANTHROPIC_BASE_URL") as caught,
    ):
        p.complete(ask())
    assert caught.value.status_code is None
    assert closed_port_url in str(caught.value)


def test_timeout_is_a_provider_error(loopback: Any, fake_key: str) -> None:
    loopback.add(200, json.dumps(message()).encode(), delay=1.0)
    with (
        AnthropicProvider(
            "claude-test", api_key=fake_key, base_url=loopback.url, max_retries=0, timeout=0.2
        ) as p,
        pytest.raises(ProviderError, match="timed out"),
    ):
        p.complete(ask())


# --- configuration ------------------------------------------------------------------------


def test_missing_key_names_the_variable() -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY"):
        AnthropicProvider("claude-test")


def test_a_base_url_on_this_machine_needs_no_key(loopback: Any) -> None:
    loopback.add_json(message())
    with AnthropicProvider("claude-test", base_url=f"{loopback.url}", max_retries=0) as provider:
        provider.complete(ask())
    assert sent_key(loopback) == LOOPBACK_PLACEHOLDER_KEY


@pytest.mark.parametrize(
    "url", ["http://localhost:9/v1", "http://[::1]:9/v1", "http://127.8.0.1:9"], ids=str
)
def test_every_loopback_form_needs_no_key(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    AnthropicProvider("claude-test", base_url=url).close()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    AnthropicProvider("claude-test").close()


@pytest.mark.parametrize(
    "url", ["https://api.example.com/v1", "http://10.0.0.1/v1", "http://127.0.0.1.example.com"]
)
def test_a_remote_base_url_still_needs_the_key(url: str) -> None:
    with pytest.raises(ConfigurationError, match="ANTHROPIC_API_KEY is not set"):
        AnthropicProvider("claude-test", base_url=url)


def test_key_and_base_url_come_from_the_environment(
    loopback: Any, fake_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake_key)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    loopback.add_json(message())
    with AnthropicProvider("claude-test", max_retries=0) as provider:
        provider.complete(ask())
    assert sent_key(loopback) == fake_key


def test_a_given_client_is_used_and_left_open(loopback: Any, fake_key: str) -> None:
    client = anthropic.Anthropic(api_key=fake_key, base_url=loopback.url, max_retries=0)
    loopback.add_json(message(text("via client")))
    with AnthropicProvider("claude-test", client=client) as provider:
        assert provider.complete(ask()).text == "via client"
    assert not client.is_closed()
    client.close()


def test_provider_satisfies_the_protocol(provider: AnthropicProvider) -> None:
    assert isinstance(provider, LLMProvider)
    assert (provider.name, provider.model) == ("anthropic", "claude-test")


def test_importing_providers_does_not_import_the_sdk() -> None:
    code = "import sys, harness.providers; print('anthropic' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
