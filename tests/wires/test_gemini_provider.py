"""``GeminiProvider`` through the real google-genai SDK, against the simulator over loopback.

The simulator checks, as the real API does for gemini-3 models, that the first
call of every model turn comes back signed with the signature it issued: a
provider that dropped or altered ``thoughtSignature`` between turns gets a 400.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from google import genai
from google.genai import types

from harness import Settings, build_application
from harness.core import (
    ConfigurationError,
    LLMRequest,
    LLMResponse,
    Message,
    ProviderError,
    Role,
)
from harness.core.messages import ToolCall, ToolChoice, ToolDefinition
from harness.simulator import SimulatorServer
from harness.testing import load_trace
from harness.wires.gemini.provider import CONTENT_KEY, GeminiProvider, from_gemini_response

MODEL = "gemini-3-flash-preview"
KEY = "AIza-test-SECRET-0000000000"
READ = ToolDefinition(
    name="read",
    description="Read a file",
    parameters={"type": "object", "properties": {"path": {"type": "string"}}},
)
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


def _contents(body: dict[str, Any]) -> list[dict[str, Any]]:
    contents: list[dict[str, Any]] = body["contents"]
    return contents


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_an_agent_run_reads_two_files_with_parallel_calls(tmp_path: Path, stream: bool) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n")
    (work / "b.txt").write_text("beta\n")
    with SimulatorServer(SCRIPT) as server:
        settings = Settings(
            workdir=work,
            state_dir=tmp_path / "state",
            provider="gemini",
            model=MODEL,
            base_url=server.url,
            stream=stream,
            max_retries=0,
        )
        result = build_application(settings).run("read a and b", session="g")
        bodies = [request.body for request in server.requests]
        paths = [request.path for request in server.requests]
    assert result.stop_reason == "final" and result.text == "a says alpha, b says beta"
    method = "streamGenerateContent" if stream else "generateContent"
    assert paths == [f"/v1beta/models/{MODEL}:{method}"] * 3
    # Turn 3 sends both model turns back, each first call still signed, and the
    # two results of the parallel calls in one user turn.
    last = _contents(bodies[2])
    model_turns = [c for c in last if c["role"] == "model"]
    assert len(model_turns) == 2
    assert all("thoughtSignature" in turn["parts"][0] for turn in model_turns)
    answers = [p["functionResponse"] for p in last[-1]["parts"]]
    assert [a["name"] for a in answers] == ["read", "read"]
    assert "beta" in answers[0]["response"]["output"]
    assert "alpha" in answers[1]["response"]["output"]
    tree = load_trace(result.trace_path)
    llm = tree.find_all(kind="llm.call")
    assert [span.attributes["provider"] for span in llm] == ["gemini"] * 3
    assert [span.name for span in tree.find_all(kind="tool.call")] == ["read"] * 3


async def _two_turns(provider: GeminiProvider) -> tuple[LLMResponse, LLMResponse]:
    request = LLMRequest(messages=(Message.user("go"),), tools=(READ,))
    try:
        first = await provider.acomplete(request)
        history = (
            *request.messages,
            Message(role=Role.ASSISTANT, tool_calls=first.tool_calls, metadata=first.metadata),
            Message.tool(first.tool_calls[0].id, "alpha"),
        )
        second = await provider.acomplete(LLMRequest(messages=history, tools=(READ,)))
    finally:
        await provider.aclose()
    return first, second


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_async_calls_go_through_the_sdks_async_client(stream: bool) -> None:
    with SimulatorServer(SCRIPT) as server:
        provider = GeminiProvider(MODEL, api_key=KEY, base_url=server.url, stream=stream)
        first, second = asyncio.run(_two_turns(provider))
        statuses = [r.status for r in server.requests]
    assert [c.arguments for c in first.tool_calls] == [{"path": "a.txt"}]
    assert statuses == [200, 200]
    assert [c.arguments for c in second.tool_calls] == [{"path": "b.txt"}, {"path": "a.txt"}]


def test_a_passed_async_client_is_awaited_and_refused_by_complete() -> None:
    with SimulatorServer(SCRIPT) as server:
        client = genai.Client(
            api_key=KEY, http_options=types.HttpOptions(base_url=server.url, api_version="v1beta")
        )
        provider = GeminiProvider(MODEL, client=client.aio)
        request = LLMRequest(messages=(Message.user("go"),), tools=(READ,))
        with pytest.raises(ConfigurationError, match="acomplete"):
            provider.complete(request)

        async def once() -> LLMResponse:
            try:
                return await provider.acomplete(request)
            finally:
                await client.aio.aclose()

        answer = asyncio.run(once())
    assert answer.tool_calls[0].name == "read"


def _request_after(first_metadata: dict[str, Any]) -> LLMRequest:
    call = ToolCall(id="c1", name="read", arguments={"path": "a.txt"})
    return LLMRequest(
        messages=(
            Message.user("go"),
            Message(role=Role.ASSISTANT, tool_calls=(call,), metadata=first_metadata),
            Message.tool("c1", "alpha"),
        ),
        tools=(READ,),
    )


def test_a_history_without_signatures_is_sent_with_the_skip_sentinel() -> None:
    with SimulatorServer({"version": 1, "turns": ["done"]}) as server:
        with GeminiProvider(MODEL, api_key=KEY, base_url=server.url) as provider:
            answer = provider.complete(_request_after({}))
        sent = _contents(server.requests[0].body)
    assert answer.text == "done"
    signature = sent[1]["parts"][0]["thoughtSignature"]
    assert base64.urlsafe_b64decode(signature) == b"skip_thought_signature_validator"


def test_an_altered_signature_is_refused_as_the_real_api_refuses_it() -> None:
    tampered = {
        CONTENT_KEY: {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "read", "args": {"path": "a.txt"}},
                    "thoughtSignature": base64.b64encode(b"not-the-servers").decode(),
                }
            ],
        }
    }
    with SimulatorServer({"version": 1, "turns": ["done"]}) as server:
        provider = GeminiProvider(MODEL, api_key=KEY, base_url=server.url, max_retries=0)
        with pytest.raises(ProviderError, match="thought_signature") as caught:
            provider.complete(_request_after(tampered))
    assert caught.value.status_code == 400
    assert "harness simulator" in str(caught.value)


def test_a_tool_error_goes_back_as_an_error_response() -> None:
    request = _request_after({})
    failed = Message.tool("c1", "no such file", {"is_error": True})
    request = request.model_copy(update={"messages": (*request.messages[:2], failed)})
    with SimulatorServer({"version": 1, "turns": ["sorry"]}) as server:
        with GeminiProvider(MODEL, api_key=KEY, base_url=server.url) as provider:
            provider.complete(request)
        sent = _contents(server.requests[0].body)
    assert sent[2]["parts"][0]["functionResponse"]["response"] == {"error": "no such file"}


def test_tool_choice_system_and_max_tokens_reach_the_wire() -> None:
    request = LLMRequest(
        messages=(Message.system("be brief"), Message.user("go")),
        tools=(READ,),
        tool_choice=ToolChoice.REQUIRED,
        max_tokens=64,
    )
    with SimulatorServer({"version": 1, "turns": ["ok"]}) as server:
        with GeminiProvider(MODEL, api_key=KEY, base_url=server.url) as provider:
            provider.complete(request)
        body = server.requests[0].body
    assert body["systemInstruction"]["parts"] == [{"text": "be brief"}]
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": "ANY"}}
    assert body["generationConfig"]["maxOutputTokens"] == 64
    declaration = body["tools"][0]["functionDeclarations"][0]
    assert declaration["name"] == "read"


def test_a_scripted_rate_limit_becomes_a_provider_error_without_the_key() -> None:
    script = {"version": 1, "turns": [{"error": {"status": 429, "message": "slow down"}}]}
    with SimulatorServer(script) as server:
        provider = GeminiProvider(MODEL, api_key=KEY, base_url=server.url, max_retries=0)
        with pytest.raises(ProviderError, match="429") as caught:
            provider.complete(LLMRequest(messages=(Message.user("go"),)))
    assert caught.value.status_code == 429 and caught.value.provider == "gemini"
    assert KEY not in str(caught.value)


def test_a_missing_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigurationError, match="GEMINI_API_KEY"):
        GeminiProvider(MODEL)


@pytest.mark.parametrize(
    ("usage", "expected"),
    [
        pytest.param(
            {
                "promptTokenCount": 100,
                "cachedContentTokenCount": 60,
                "candidatesTokenCount": 7,
                "thoughtsTokenCount": 30,
                "toolUsePromptTokenCount": 5,
            },
            (105, 37, 60, 30),
            id="cached-thoughts-tooluse",
        ),
        pytest.param(
            {"promptTokenCount": 15, "thoughtsTokenCount": 2}, (15, 2, 0, 2), id="no-candidates"
        ),
        pytest.param({"trafficType": "ON_DEMAND"}, (0, 0, 0, 0), id="blocked-prompt"),
    ],
)
def test_usage_counts_thoughts_as_output_and_cache_inside_input(
    usage: dict[str, Any], expected: tuple[int, int, int, int]
) -> None:
    mapped = from_gemini_response({"usageMetadata": usage}).usage
    got = (
        mapped.input_tokens,
        mapped.output_tokens,
        mapped.cached_input_tokens,
        mapped.reasoning_tokens,
    )
    assert got == expected


def test_thought_summaries_stay_out_of_the_text_and_in_the_kept_content() -> None:
    data = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {"text": "Let me think", "thought": True},
                        {"text": "Paris", "thoughtSignature": "c2ln"},
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "responseId": "r1",
    }
    response = from_gemini_response(data)
    assert response.text == "Paris" and response.stop_reason == "STOP"
    assert response.metadata[CONTENT_KEY]["parts"][0]["thought"] is True


def test_a_blocked_prompt_maps_to_its_block_reason() -> None:
    data = {"promptFeedback": {"blockReason": "MODEL_ARMOR"}, "usageMetadata": {}}
    response = from_gemini_response(data)
    assert response.stop_reason == "MODEL_ARMOR"
    assert response.text == "" and response.tool_calls == () and response.metadata == {}


def test_a_refused_connection_is_a_provider_error_without_the_key() -> None:
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    provider = GeminiProvider(
        MODEL, api_key=KEY, base_url=f"http://127.0.0.1:{port}", max_retries=0, timeout=5
    )
    with pytest.raises(ProviderError, match="ConnectError") as caught:
        provider.complete(LLMRequest(messages=(Message.user("go"),)))
    message = str(caught.value)
    assert caught.value.status_code is None and KEY not in message
    assert "GOOGLE_GEMINI_BASE_URL" in message and "\n" not in message


def test_unsigned_calls_of_an_earlier_turn_pass_as_the_real_api_lets_them() -> None:
    old_call = {"functionCall": {"name": "read", "args": {"path": "z"}}}  # no signature
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "first question"}]},
            {"role": "model", "parts": [old_call]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read", "response": {}}}]},
            {"role": "model", "parts": [{"text": "first answer"}]},
            {"role": "user", "parts": [{"text": "second question"}]},
        ]
    }
    with SimulatorServer({"version": 1, "turns": ["ok"]}) as server:
        answer, _ = server.handle(
            f"/v1beta/models/{MODEL}:generateContent", json.dumps(body).encode()
        )
        current = [*body["contents"], {"role": "model", "parts": [old_call]}]
        refused, _ = server.handle(
            f"/v1beta/models/{MODEL}:generateContent", json.dumps({"contents": current}).encode()
        )
    assert answer.status == 200
    assert refused.status == 400 and b"thought_signature" in refused.body


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_a_vertex_client_calls_the_vertex_path(stream: bool) -> None:
    from google.oauth2.credentials import Credentials

    with SimulatorServer(SCRIPT) as server:
        client = genai.Client(
            vertexai=True,
            project="proj",
            location="europe-west4",
            credentials=Credentials("test-token-vertex"),
            http_options=types.HttpOptions(base_url=server.url),
        )
        provider = GeminiProvider(MODEL, client=client, stream=stream)
        answer = provider.complete(LLMRequest(messages=(Message.user("go"),), tools=(READ,)))
        client.close()
        (received,) = server.requests
    method = "streamGenerateContent" if stream else "generateContent"
    assert received.path.endswith(
        f"/projects/proj/locations/europe-west4/publishers/google/models/{MODEL}:{method}"
    )
    assert answer.tool_calls[0].arguments == {"path": "a.txt"}
