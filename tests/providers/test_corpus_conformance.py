"""Conformance of the provider adapters against real recorded OpenAI / Anthropic traffic.

Every case of the shared corpus (``shared/corpus`` beside the repo, see its
README) is served byte for byte by a loopback HTTP server to the real SDK, which
the adapter drives. Each case is checked twice:

* the response: the mapped ``LLMResponse`` (text, tool calls, usage, stop reason,
  model, id) against the expectations below, read off the recorded bodies; error
  cases must become a ``ProviderError`` with the status and the provider's message;
* the request: the recorded request is turned into a harness ``LLMRequest``, sent
  through the adapter, and what reached the server must equal the recorded body,
  normalised to the fields harness models (no ``strict`` flags, server tools or
  extended-thinking replay, which harness does not represent).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.core import LLMRequest, LLMResponse, Message, ProviderError, ToolCall
from harness.core.messages import ToolChoice, ToolDefinition
from harness.wires.anthropic.provider import AnthropicProvider
from harness.wires.openai.provider import OpenAIProvider

FAKE_KEY = "sk-test-SECRET123"

ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the repo (CI, the main checkout); a worktree is one level deeper.
CORPUS = next(
    (
        base
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if base.is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
).resolve()
MISSING = (
    f"needs the shared conformance corpus (real OpenAI/Anthropic request/response pairs, "
    f"kept outside this repo) at {CORPUS}: check out ../shared/corpus beside the repo or "
    "set HARNESS_CORPUS_DIR"
)


@dataclass(frozen=True)
class Case:
    provider: str
    name: str
    request: dict[str, Any]
    status: int
    body: bytes
    streamed: bool

    @property
    def key(self) -> str:
        return f"{self.provider}/{self.name}"


def load_cases(provider: str) -> list[Case]:
    cases = []
    for path in sorted((CORPUS / provider).glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.name.endswith(".meta.json"):
            body = (path.parent / data["response_file"]).read_bytes()
            name = path.name.removesuffix(".meta.json")
        else:
            body = json.dumps(data["response"]).encode()
            name = path.stem
        streamed = bool(data["request"].get("stream"))
        cases.append(Case(provider, name, data["request"], data["response_status"], body, streamed))
    return cases


def case_params(provider: str) -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, id="corpus-missing", marks=pytest.mark.skip(reason=MISSING))]
    return [pytest.param(case, id=case.name) for case in load_cases(provider)]


@dataclass(frozen=True)
class Expected:
    text: str | tuple[str, str]  # exact, or (prefix, suffix) for long answers
    calls: tuple[tuple[str, str, dict[str, Any]], ...]
    usage: tuple[int, int, int]  # input, output, cached input
    stop_reason: str
    model: str
    raw_id: str


@dataclass(frozen=True)
class ExpectedError:
    status: int
    message: str


EXPECTED: dict[str, Expected | ExpectedError] = {
    "openai/text_basic": Expected(
        "The capital of France is Paris.", (), (24, 8, 0), "stop",
        "gpt-4o-2024-08-06", "chatcmpl-BJjf61mLb9z5H45ClJzbx0UWKwjo1",
    ),
    "openai/tool_call_single": Expected(
        "", (("call_bhZkmIKKItNGJ41whHUHB7p9", "get_temperature", {"city": "Tokyo"}),),
        (50, 15, 0), "tool_calls",
        "gpt-4.1-mini-2025-04-14", "chatcmpl-BMxEwRA0p0gJ52oKS7806KAlfMhqq",
    ),
    "openai/tool_result_followup": Expected(
        "The temperature in Tokyo is currently 20.0 degrees Celsius.", (), (75, 15, 0), "stop",
        "gpt-4.1-mini-2025-04-14", "chatcmpl-BMxEx6B8JEj6oDC45MOWKp0phg8UP",
    ),
    "openai/tool_calls_parallel": Expected(
        "",
        (
            ("call_jYdIdRZHxZTn5bWCq5jlMrJi", "delete_file", {"path": ".env"}),
            ("call_TmlTVWQbzrXCZ4jNsCVNbNqu", "create_file", {"path": "test.txt"}),
        ),
        (71, 46, 0), "tool_calls", "gpt-4o-2024-08-06", "chatcmpl-C9f7f1SbHRzcwlJwrYKdSonTRWPvV",
    ),
    "openai/error_400_unsupported_value": ExpectedError(
        400, "Unsupported value: 'messages[0].role' does not support 'developer' with this model"
    ),
    "openai/error_404_model_not_found": ExpectedError(
        404, "The model `gpt-5.2-proo` does not exist or you do not have access to it"
    ),
    "openai/stream_text": Expected(
        "The capital of Mexico is Mexico City.", (), (14, 8, 0), "stop",
        "gpt-4o-2024-08-06", "chatcmpl-C2P1wP1damHwC6sXvGAIh5PMvH6wM",
    ),
    "openai/stream_tool_call": Expected(
        "", (("call_ZR5UUuTt3pf61kjwAJIYdVMj", "get_capital", {"country": "UK"}),),
        (53, 15, 0), "tool_calls",
        "gpt-4o-mini-2024-07-18", "chatcmpl-Dx0XpqH8w09uBXwq1zFGYdETjtnEl",
    ),
    "openai/stream_text_after_tool_result": Expected(
        "The capital of the UK is London.", (), (78, 9, 0), "stop",
        "gpt-4o-mini-2024-07-18", "chatcmpl-Dx0Xq5Xx9rHB2ehcHZCRDsnuymUXc",
    ),
    "openai/stream_tool_calls_parallel": Expected(
        "",
        (
            ("call_q2UyBRP7eXNTzAoR8lEhjc9Z", "get_country", {}),
            ("call_b51ijcpFkDiTQG1bQzsrmtW5", "get_product_name", {}),
        ),
        (364, 40, 0), "tool_calls", "gpt-4o-2024-08-06", "chatcmpl-C2QD1kGWsTW5OWiqAtOSFEAOfPfQH",
    ),
    "anthropic/text_basic": Expected(
        "The capital of France is Paris.", (), (20, 10, 0), "end_turn",
        "claude-3-opus-20240229", "msg_01Fg1JVgvCYUHWsxrj9GkpEv",
    ),
    "anthropic/tool_use_single": Expected(
        "I'll help find the largest city in your country. Let me first check your country "
        "using the get_user_country tool.",
        (("toolu_01JJ8TequDsrEU2pv1QFRWAK", "get_user_country", {}),),
        (383, 65, 0), "tool_use", "claude-sonnet-4-5-20250929", "msg_01MsqUB7ZyhjGkvepS1tCXp3",
    ),
    "anthropic/tool_result_followup": Expected(
        "", (("toolu_011j5uC2Tg3TZJo3nmLtJ8Mm", "capital_lookup", {"country": "Japan"}),),
        (691, 53, 0), "tool_use", "claude-sonnet-4-5-20250929", "msg_01KgnnRwGgZEK3kvEGM5nbW8",
    ),
    "anthropic/tool_use_parallel": Expected(
        "I'll help you find out who is the youngest by retrieving information about each family "
        "member. I'll retrieve their entity information to compare their ages.",
        tuple(
            (call_id, "retrieve_entity_info", {"name": name})
            for call_id, name in (
                ("toolu_0167cfEnoQaPviGdVXA95zcu", "Alice"),
                ("toolu_01EEe2V5HD1Ac4rKiUR4HD2T", "Bob"),
                ("toolu_01XFyAjstT3966qvRynZyVPo", "Charlie"),
                ("toolu_013mnQZbgtK2oe3Mo3XKJsx3", "Daisy"),
            )
        ),
        (423, 202, 0), "tool_use", "claude-haiku-4-5-20251001", "msg_011S3wxtqL5CVescWqS3zeg2",
    ),
    "anthropic/tool_use_with_thinking": Expected(
        "I'll help you find the largest city in your country. First, let me determine which "
        "country you're from.",
        (("toolu_01YGzqpRE16Vricda3Aqcejo", "get_user_country", {}),),
        (398, 155, 0), "tool_use", "claude-sonnet-4-20250514", "msg_01WvueFjZVbHcj4H4zUzeGv2",
    ),
    "anthropic/thinking_tool_result_followup": Expected(
        (
            "Based on the information that you're from Mexico, the largest city in your country "
            "is **Mexico City** (Ciudad de México).",
            "the political, economic, and cultural center of Mexico.",
        ),
        (), (566, 126, 0), "end_turn", "claude-sonnet-4-20250514", "msg_01SZ8KP8HhB1TxP6Ybbv6iKz",
    ),
    "anthropic/error_404_not_found": ExpectedError(404, "model: claude-sonet-4-5"),
    "anthropic/error_400_invalid_request": ExpectedError(
        400, "This model does not support effort level 'xhigh'"
    ),
    "anthropic/stream_text": Expected(
        "2", (), (20, 5, 0), "end_turn",
        "claude-sonnet-4-5-20250929", "msg_018E1hg8GoVTGEKQY3ovMcSJ",
    ),
    "anthropic/stream_tool_use": Expected(
        (
            "<thinking>\nThe get_weather tool is relevant",
            "calling the get_weather tool.\n</thinking>",
        ),
        (("toolu_01DYJo37oETVsCdLTTcCWcdq", "get_weather", {"location": "San Francisco, CA"}),),
        (599, 135, 0), "tool_use", "claude-3-opus-20240229", "msg_01RQXWh4UaLp6wsR9R8i8RZ3",
    ),
    "anthropic/stream_thinking_tool_use": Expected(
        "", (("toolu_01TUGHRCfso8VSw9ekt21nAR", "get_temperature", {"city": "Utrecht"}),),
        (597, 101, 0), "tool_use", "claude-sonnet-4-5-20250929", "msg_011CdoUewPGfNCZ2HiDjJzBP",
    ),
    "anthropic/stream_text_after_thinking_tool_result": Expected(
        "It is currently 18°C (64°F) in Utrecht. That's a pleasant, mild temperature!", (),
        (713, 26, 0), "end_turn", "claude-sonnet-4-5-20250929", "msg_011CdoUf6Nm9H7bPpPJehyoY",
    ),
    "anthropic/stream_tool_search_then_tool_use": Expected(
        # Text either side of the server tool call comes back as two paragraphs.
        "Let me search for a tool that can provide current exchange rate information.\n\n"
        "I found the right tool! Let me fetch the current USD to EUR exchange rate for you.",
        (
            (
                "toolu_01EFn5wTNBYA8Reni8rbmnHT",
                "get_exchange_rate",
                {"from_currency": "USD", "to_currency": "EUR"},
            ),
        ),
        (1591, 175, 0), "tool_use", "claude-sonnet-4-6", "msg_01E3Wn1NynZw9FALZ68znj9S",
    ),
}  # fmt: skip


# --- recorded wire request -> harness LLMRequest ------------------------------------------


def openai_wire_to_request(body: dict[str, Any]) -> LLMRequest:
    messages = []
    for item in body["messages"]:
        role, content = item["role"], item.get("content") or ""
        if role in ("system", "developer"):  # harness has one system role
            messages.append(Message.system(content))
        elif role == "user":
            messages.append(Message.user(content))
        elif role == "assistant":
            calls = tuple(
                ToolCall(
                    id=call["id"],
                    name=call["function"]["name"],
                    arguments=json.loads(call["function"]["arguments"]),
                )
                for call in item.get("tool_calls", ())
            )
            messages.append(Message.assistant(content, tool_calls=calls))
        else:
            messages.append(Message.tool(item["tool_call_id"], content))
    tools = tuple(
        ToolDefinition(
            name=tool["function"]["name"],
            description=tool["function"].get("description", ""),
            parameters=tool["function"]["parameters"],
        )
        for tool in body.get("tools", ())
    )
    return LLMRequest(
        messages=tuple(messages),
        tools=tools,
        tool_choice=ToolChoice(body.get("tool_choice", "auto")),
        model=body["model"],
        max_tokens=body.get("max_completion_tokens"),
    )


def anthropic_wire_to_request(body: dict[str, Any]) -> LLMRequest:
    system = body.get("system") or ""
    if isinstance(system, list):
        system = "".join(block["text"] for block in system)
    messages = [Message.system(system)] if system else []
    for item in body["messages"]:
        blocks = item["content"]
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        if item["role"] == "assistant":
            calls = tuple(
                ToolCall(id=b["id"], name=b["name"], arguments=b["input"])
                for b in blocks
                if b["type"] == "tool_use"
            )
            messages.append(Message.assistant(text, tool_calls=calls))
            continue
        for b in blocks:
            if b["type"] == "tool_result":
                meta = {"is_error": True} if b.get("is_error") else {}
                content = tool_result_text(b.get("content", ""))
                messages.append(Message.tool(b["tool_use_id"], content, meta))
        if text:
            messages.append(Message.user(text))
    tools = tuple(
        ToolDefinition(
            name=t["name"], description=t.get("description", ""), parameters=t["input_schema"]
        )
        for t in body.get("tools", ())
        if t.get("type", "custom") == "custom"  # server tools have no harness equivalent
    )
    choice = {"auto": "auto", "any": "required", "none": "none"}
    return LLMRequest(
        messages=tuple(messages),
        tools=tools,
        tool_choice=ToolChoice(choice[body.get("tool_choice", {"type": "auto"})["type"]]),
        model=body["model"],
        max_tokens=body["max_tokens"],
    )


def tool_result_text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "".join(block["text"] for block in content)


# --- recorded wire request -> what the adapter must send ----------------------------------


def openai_expected_wire(body: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {"model": body["model"], "messages": []}
    for item in body["messages"]:
        item = dict(item)
        if item["role"] == "developer":
            item["role"] = "system"
        if item["role"] == "assistant" and "tool_calls" in item:
            item.setdefault("content", None)
        wire["messages"].append(item)
    if body.get("tools"):
        wire["tools"] = [
            {
                "type": "function",
                "function": {k: v for k, v in t["function"].items() if k != "strict"},
            }
            for t in body["tools"]
        ]
        wire["tool_choice"] = body.get("tool_choice", "auto")
    if body.get("stream"):
        wire["stream"] = True
        wire["stream_options"] = {"include_usage": True}
    return wire


def anthropic_expected_wire(body: dict[str, Any]) -> dict[str, Any]:
    wire: dict[str, Any] = {
        "model": body["model"],
        "max_tokens": body["max_tokens"],
        "messages": [],
    }
    system = body.get("system")
    if system:
        wire["system"] = system if isinstance(system, str) else "".join(b["text"] for b in system)
    for item in body["messages"]:
        blocks = item["content"]
        if isinstance(blocks, str):
            blocks = [{"type": "text", "text": blocks}]
        # Extended thinking is not modelled by harness, so it is never replayed.
        blocks = [
            tool_result_wire(b) if b["type"] == "tool_result" else b
            for b in blocks
            if b["type"] not in ("thinking", "redacted_thinking")
        ]
        wire["messages"].append({"role": item["role"], "content": blocks})
    tools = [
        {
            "name": t["name"],
            "description": t.get("description", ""),
            "input_schema": t["input_schema"],
        }
        for t in body.get("tools", ())
        if t.get("type", "custom") == "custom"
    ]
    if tools:
        wire["tools"] = tools
        wire["tool_choice"] = body.get("tool_choice", {"type": "auto"})
    if body.get("stream"):
        wire["stream"] = True
    return wire


def tool_result_wire(block: dict[str, Any]) -> dict[str, Any]:
    """Harness sends a tool result's text as one string, with is_error always set."""
    return {
        **block,
        "content": tool_result_text(block["content"]),
        "is_error": bool(block.get("is_error")),
    }


# --- the exchange -------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    response: LLMResponse | None
    error: ProviderError | None
    sent: dict[str, Any]
    path: str


def run_case(loopback: Any, case: Case) -> Exchange:
    content_type = "text/event-stream" if case.streamed else "application/json"
    # Odd-sized pieces split SSE events and JSON across reads, as a real network does.
    loopback.add(case.status, case.body, content_type=content_type, chunk_size=97)
    provider: OpenAIProvider | AnthropicProvider
    if case.provider == "openai":
        base_url = f"{loopback.url}/v1"
        provider = OpenAIProvider(
            "unused", api_key=FAKE_KEY, base_url=base_url, max_retries=0, stream=case.streamed
        )
        request = openai_wire_to_request(case.request)
    else:
        provider = AnthropicProvider(
            "unused", api_key=FAKE_KEY, base_url=loopback.url, max_retries=0, stream=case.streamed
        )
        request = anthropic_wire_to_request(case.request)
    with provider:
        try:
            response, error = provider.complete(request), None
        except ProviderError as exc:
            response, error = None, exc
    assert len(loopback.requests) == 1, "the adapter must make exactly one HTTP request"
    sent = loopback.requests[0]
    return Exchange(response, error, sent.json(), sent.path)


def expectation(case: Case) -> Expected | ExpectedError:
    expected = EXPECTED.get(case.key)
    if expected is None:
        pytest.fail(f"corpus case {case.key} has no expectation; add one to EXPECTED")
    return expected


def check_response(exchange: Exchange, expected: Expected | ExpectedError) -> None:
    if isinstance(expected, ExpectedError):
        assert exchange.response is None, "an error response must raise ProviderError"
        assert exchange.error is not None
        assert exchange.error.status_code == expected.status
        assert expected.message in str(exchange.error)
        assert f"HTTP {expected.status}" in str(exchange.error)
        assert "Hint:" in str(exchange.error)
        return
    assert exchange.error is None, f"unexpected ProviderError: {exchange.error}"
    response = exchange.response
    assert response is not None
    if isinstance(expected.text, str):
        assert response.text == expected.text
    else:
        assert response.text.startswith(expected.text[0])
        assert response.text.endswith(expected.text[1])
    calls = tuple((call.id, call.name, call.arguments) for call in response.tool_calls)
    assert calls == expected.calls
    usage = response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cached_input_tokens) == expected.usage
    assert response.stop_reason == expected.stop_reason
    assert response.model == expected.model
    assert response.raw_id == expected.raw_id


WireBuilder = Callable[[dict[str, Any]], dict[str, Any]]

# The SDK warns about deprecated model names the corpus was recorded with.
anthropic_model_warnings = pytest.mark.filterwarnings(
    "ignore:The model '.*' is deprecated:DeprecationWarning"
)


@pytest.mark.parametrize("case", case_params("openai"))
def test_openai_response_maps_like_the_recording(loopback: Any, case: Case) -> None:
    check_response(run_case(loopback, case), expectation(case))


@pytest.mark.parametrize("case", case_params("openai"))
def test_openai_request_matches_the_recorded_wire_shape(loopback: Any, case: Case) -> None:
    exchange = run_case(loopback, case)
    assert exchange.path == "/v1/chat/completions"
    assert exchange.sent == openai_expected_wire(case.request)


@anthropic_model_warnings
@pytest.mark.parametrize("case", case_params("anthropic"))
def test_anthropic_response_maps_like_the_recording(loopback: Any, case: Case) -> None:
    check_response(run_case(loopback, case), expectation(case))


@anthropic_model_warnings
@pytest.mark.parametrize("case", case_params("anthropic"))
def test_anthropic_request_matches_the_recorded_wire_shape(loopback: Any, case: Case) -> None:
    exchange = run_case(loopback, case)
    assert exchange.path == "/v1/messages"
    assert exchange.sent == anthropic_expected_wire(case.request)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)
def test_every_expectation_has_a_corpus_case() -> None:
    keys = {case.key for provider in ("openai", "anthropic") for case in load_cases(provider)}
    assert len(keys) >= 20, f"expected the full corpus under {CORPUS}, found {sorted(keys)}"
    assert set(EXPECTED) == keys
