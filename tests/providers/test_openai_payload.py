"""OpenAIProvider sends its payload with ``client.post``, skipping the SDK's param
transform; these tests keep that equal to what ``chat.completions.create`` sends."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai._utils import transform
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)

from harness.core import LLMRequest, Message, ToolCall, ToolChoice, ToolDefinition
from harness.wires.openai.provider import OpenAIProvider

READ = ToolDefinition(
    name="read",
    description="Read a file.",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
    ],
}

_text = st.text(max_size=30)
_json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text
_json = st.recursive(
    _json_scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8,
)
_ids = st.from_regex(r"call_[a-z0-9]{1,8}", fullmatch=True)


@st.composite
def _assistant_turn(draw: st.DrawFn) -> list[Message]:
    calls = draw(
        st.lists(
            st.builds(
                ToolCall,
                id=_ids,
                name=st.sampled_from(["read", "write", "bash"]),
                arguments=st.dictionaries(_text, _json, max_size=3),
            ),
            max_size=3,
            unique_by=lambda call: call.id,
        )
    )
    turn = [Message.assistant(draw(_text), tool_calls=tuple(calls))]
    turn += [Message.tool(call.id, draw(_text)) for call in calls]
    return turn


@st.composite
def requests(draw: st.DrawFn) -> LLMRequest:
    messages = [Message.system(draw(_text)), Message.user(draw(_text))]
    for turn in draw(st.lists(_assistant_turn(), max_size=3)):
        messages += turn
    tools = draw(
        st.lists(
            st.builds(
                ToolDefinition,
                name=st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
                description=_text,
                parameters=st.dictionaries(_text, _json, max_size=3),
            ),
            max_size=3,
        )
    )
    return LLMRequest(
        messages=tuple(messages),
        tools=tuple(tools),
        tool_choice=draw(st.sampled_from(list(ToolChoice))),
        max_tokens=draw(st.none() | st.integers(1, 4096)),
    )


@pytest.fixture(scope="module")
def offline() -> dict[bool, OpenAIProvider]:
    url = "http://127.0.0.1:9/v1"
    return {
        stream: OpenAIProvider("gpt-test", api_key="sk-test-unused", base_url=url, stream=stream)
        for stream in (False, True)
    }


@pytest.mark.deep
@settings(max_examples=60, deadline=None)  # the transform costs ms per body
@given(request=requests(), stream=st.booleans())
def test_the_sdk_transform_leaves_every_body_unchanged(
    offline: dict[bool, OpenAIProvider], request: LLMRequest, stream: bool
) -> None:
    body = offline[stream]._body(request)
    snapshot = json.loads(json.dumps(body))
    expected = CompletionCreateParamsStreaming if stream else CompletionCreateParamsNonStreaming
    assert transform(body, expected) == snapshot


STREAM = (
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    '"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
    "data: [DONE]\n\n"
)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_the_wire_request_equals_what_create_sends(
    loopback: Any, fake_key: str, stream: bool
) -> None:
    call = ToolCall(id="call_1", name="read", arguments={"path": "a.txt", "limit": 3})
    request = LLMRequest(
        messages=(
            Message.system("be brief"),
            Message.user("read a.txt"),
            Message.assistant("", tool_calls=(call,)),
            Message.tool("call_1", "hello"),
        ),
        tools=(READ,),
        tool_choice=ToolChoice.REQUIRED,
        max_tokens=64,
    )
    url = f"{loopback.url}/v1"
    with OpenAIProvider(
        "gpt-test", api_key=fake_key, base_url=url, max_retries=0, stream=stream
    ) as provider:
        for _ in range(2):
            if stream:
                loopback.add_sse(STREAM)
            else:
                loopback.add_json(COMPLETION)
        provider.complete(request)
        reply = provider._client.chat.completions.create(**provider._body(request))
        if stream:
            assert "".join(c.choices[0].delta.content or "" for c in reply) == "hi"
    ours, theirs = loopback.requests[-2:]
    assert (ours.method, ours.path) == (theirs.method, theirs.path)
    assert ours.path == "/v1/chat/completions"
    assert ours.body == theirs.body  # byte for byte: old cassettes keep matching
    assert ours.headers["authorization"] == f"Bearer {fake_key}"
    assert ours.headers.keys() == theirs.headers.keys()
    if stream:
        assert ours.json()["stream_options"] == {"include_usage": True}
