"""Conformance of ``OpenAIResponsesProvider`` against real recorded Responses API traffic.

Every case of ``shared/corpus/openai-responses`` (see the corpus README) is
served byte for byte by a loopback server to the real ``openai`` SDK, which the
adapter drives, and checked three ways:

* the response: the mapped ``LLMResponse`` (text, calls, usage with cached and
  reasoning tokens, stop reason, model, id) against the table below, read off
  the recorded bodies; error cases become a ``ProviderError`` with the status;
* the request: the recorded input items are parsed into harness messages (the
  reasoning items into the assistant message's metadata, as the adapter itself
  keeps them), sent through the adapter, and what reached the server must equal
  the recorded body normalised to what harness models (``store: false``, the
  encrypted-reasoning ``include``, ``strict: false`` tools; no output formats,
  sampling options or ``previous_response_id``);
* every stream folds, from its deltas alone, to the same result as its terminal
  ``Response`` object, and the three streams recorded beside a JSON twin give
  the same kind of result as that twin.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from harness.core import LLMRequest, LLMResponse, Message, ProviderError, ToolCall
from harness.core.messages import ToolChoice, ToolDefinition
from harness.wires.openai_responses.events import TERMINAL_EVENTS, EventAssembler
from harness.wires.openai_responses.items import ITEMS_KEY, from_response
from harness.wires.openai_responses.provider import OpenAIResponsesProvider

FAKE_KEY = "sk-test-SECRET123"
ROOT = Path(__file__).resolve().parents[2]
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
FOLDER = CORPUS / "openai-responses"
MISSING = (
    f"needs the shared conformance corpus's Responses API folder (real recorded traffic, "
    f"kept outside this repo) at {FOLDER}: check out ../shared/corpus beside the repo or "
    "set HARNESS_CORPUS_DIR"
)


@dataclass(frozen=True)
class Case:
    name: str
    request: dict[str, Any]
    status: int
    body: bytes
    streamed: bool


def load_cases() -> list[Case]:
    cases = []
    for path in sorted(FOLDER.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.name.endswith(".meta.json"):
            body = (path.parent / data["response_file"]).read_bytes()
            name = path.name.removesuffix(".meta.json")
        else:
            body = json.dumps(data["response"]).encode()
            name = path.stem
        streamed = bool(data["request"].get("stream"))
        cases.append(Case(name, data["request"], data["response_status"], body, streamed))
    return cases


def case_params(streamed: bool | None = None) -> list[Any]:
    if not FOLDER.is_dir():
        return [pytest.param(None, id="corpus-missing", marks=pytest.mark.skip(reason=MISSING))]
    return [
        pytest.param(case, id=case.name)
        for case in load_cases()
        if streamed is None or case.streamed == streamed
    ]


@dataclass(frozen=True)
class Expected:
    text: str | tuple[str, str]  # exact, or (prefix, suffix)
    calls: tuple[tuple[str, str, dict[str, Any]], ...]
    usage: tuple[int, int, int, int]  # input, output, cached input, reasoning
    stop_reason: str
    model: str
    raw_id: str
    reasoning_items: int = 0


@dataclass(frozen=True)
class ExpectedError:
    status: int
    message: str


GPT4O = "gpt-4o-2024-08-06"
GPT5 = "gpt-5-2025-08-07"
PARALLEL = (
    ("secret_retrieval_tool", {"password": "mellon"}),
    ("secret_retrieval_tool", {"password": "radiance"}),
)
EXPECTED: dict[str, Expected | ExpectedError] = {
    "error_400_model_not_found": ExpectedError(
        400, "The requested model 'gpt-5.2-proo' does not exist."
    ),
    "error_400_reasoning_item_without_following_item": ExpectedError(
        400, "was provided without its required following item"
    ),
    "error_404_model_not_found": ExpectedError(404, "Model not found gpt-5-codex"),
    "function_call_output_followup": Expected(
        "The capital of PotatoLand is Potato City.",
        (),
        (67, 11, 0, 0),
        "stop",
        GPT4O,
        "resp_0e9950da9eac6a780068fbaa1bc030819da585a6f85ddad1e6",
    ),
    "function_call_single": Expected(
        "",
        (("call_YfwRsW8sUxDKipwyhWTzOXCA", "get_capital", {"country": "PotatoLand"}),),
        (40, 18, 0, 0),
        "tool_calls",
        GPT4O,
        "resp_04907f5d3de791830068fbaa19bb908195a91378279dba0f14",
    ),
    "function_calls_parallel": Expected(
        "",
        tuple(
            (i, n, a)
            for i, (n, a) in zip(
                ("call_bzXaB1HDWsWy7n6bMrxJzNNa", "call_Dd4wvykCr6NttXKxRK0BFH96"),
                PARALLEL,
                strict=True,
            )
        ),
        (36, 54, 0, 0),
        "tool_calls",
        GPT4O,
        "resp_05020a9191cad7ac0068f966aec8508190bb614254f3a4c9d4",
    ),
    "function_calls_parallel_outputs_followup": Expected(
        ('Here are the secrets:\n\n- For password "mellon": ', "Life before Death"),
        (),
        (136, 30, 0, 0),
        "stop",
        GPT4O,
        "resp_05020a9191cad7ac0068f966b1d0488190b0c61572913e3cd8",
    ),
    "incomplete_max_output_tokens": Expected(
        ("Sure! Here is a list of all 50 U.S. states:\n\n1. Al", ""),
        (),
        (14, 50, 0, 0),
        "max_output_tokens",
        GPT4O,
        "resp_043a58ea47ac058e0068f966c095748197bf176643cf204a03",
    ),
    "previous_response_id_function_call_output": Expected(
        "The weather in New York is sunny and 72°F.",
        (),
        (139, 14, 0, 0),
        "stop",
        "gpt-4.1-2025-04-14",
        "resp_0435eb6c2aa8e9eb0069e160015f14819589a941eb8f14e5a5",
    ),
    "reasoning_encrypted_function_call_store_false": Expected(
        "",
        (("call_gZrTFArD5630P0RS6FEaT79L", "rnorm", {"n": 5, "mean": 0, "sd": 1}),),
        (95, 50, 0, 22),
        "tool_calls",
        "gpt-5.6-terra",
        "resp_0cfc11607c070948016a6fc438398481969261f9ba0dd2ecba",
        1,
    ),
    "reasoning_encrypted_replay_store_false": Expected(
        ("Five draws from a standard normal distribution", ""),
        (),
        (182, 47, 0, 0),
        "stop",
        "gpt-5.6-terra",
        "resp_0cfc11607c070948016a6fc439ff5081968359c4fd4bd98dcc",
    ),
    "reasoning_replay_cached_tokens": Expected(
        ("Softly old fountains illumine alleys\n", ""),
        (),
        (2087, 124, 2048, 0),
        "stop",
        GPT5,
        "resp_68c42d3fd6a08196bce23d6be960ff8a0e8bc41441c948f6",
    ),
    "refusal": Expected(
        "I'm very sorry, but I can't assist with that.",
        (),
        (54, 13, 0, 0),
        "refusal",
        GPT4O,
        "resp_0e0644cfe502d3570068f966c84d6c81958f57dbddc6c44841",
    ),
    "stream_function_call": Expected(
        "",
        (("call_kL0PCQV7M2WMoVX8V8OtYSAL", "get_capital", {"country": "France"}),),
        (255, 16, 0, 0),
        "tool_calls",
        GPT4O,
        "resp_67e554a155508191900ee113293c4c830794405d35281ae2",
    ),
    "stream_function_calls_parallel": Expected(
        "",
        tuple(
            (i, n, a)
            for i, (n, a) in zip(
                ("call_sKC7OABqf2A2PTLCm0CLeRWV", "call_OdR3s3xop0vtgkDyWRMLafuH"),
                PARALLEL,
                strict=True,
            )
        ),
        (36, 54, 0, 0),
        "tool_calls",
        GPT4O,
        "resp_0c3b09d20eedf2d30068f966b9b7048190b7501a24a1447ec0",
    ),
    "stream_incomplete_max_output_tokens": Expected(
        ("Sure! Here is a list of all 50 U.S. states:\n\n1. Al", ""),
        (),
        (14, 50, 0, 0),
        "max_output_tokens",
        GPT4O,
        "resp_0cca8afa69cc6ca90068f966c4826c8193ae5b3f5ad5030e49",
    ),
    "stream_reasoning_encrypted_function_call": Expected(
        "",
        (("call_CWXgs68YprAjp6t0371hiPOI", "final_result", {"result": 6666}),),
        (53, 469, 0, 448),
        "tool_calls",
        GPT5,
        "resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33",
        1,
    ),
    "stream_reasoning_summary": Expected(
        "3",
        (),
        (32, 839, 0, 832),
        "stop",
        GPT5,
        "resp_0a1097cbfef27a8c00696afa23fb9c819693455c72eabd7718",
        1,
    ),
    "stream_refusal": Expected(
        "I'm sorry, I can't assist with that.",
        (),
        (54, 11, 0, 0),
        "refusal",
        GPT4O,
        "resp_05f46fd4032c869b0068f966cb89248197969af833ea7a7e33",
    ),
    "stream_text": Expected(
        "4200 + 42 equals 4242.",
        (),
        (16, 11, 0, 0),
        "stop",
        GPT4O,
        "resp_0360bd45725b0a010068f966a4c4a881959717ba17b93477ef",
    ),
    "structured_output_json_schema": Expected(
        ('{"title":"THE NAME OF THE WIND","author":{"first_n', "}"),
        (),
        (166, 30, 0, 0),
        "stop",
        GPT4O,
        "resp_005e0ab32c3df1050068f966ce4bc48190bb2074dac166dfd4",
    ),
    "text_basic": Expected(
        "The capital of France is Paris.",
        (),
        (14, 8, 0, 0),
        "stop",
        GPT4O,
        "resp_68c2e8c147ac819491bcd667055eadbc02e845978fbbb592",
    ),
    "text_instructions": Expected(
        "The capital of France is Paris.",
        (),
        (24, 8, 0, 0),
        "stop",
        GPT4O,
        "resp_67f3fdfd9fa08191a3d5825db81b8df6003bc73febb56d77",
    ),
    "usage_cached_and_reasoning_tokens": Expected(
        ("A good database schema starts with the application", ""),
        (),
        (1219, 100, 1216, 20),
        "max_output_tokens",
        "gpt-5.6-sol",
        "resp_0ef04dc8e9ee7e3f016a51400a540c81a1a416d8da6938a3dd",
        1,
    ),
}

# Pairs recorded by the same test with and without streaming.
TWINS = {
    "stream_function_calls_parallel": "function_calls_parallel",
    "stream_incomplete_max_output_tokens": "incomplete_max_output_tokens",
    "stream_refusal": "refusal",
}


# --- recorded wire request -> harness LLMRequest ------------------------------------------


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content)


def _is_assistant(item: dict[str, Any]) -> bool:
    return item.get("type") in ("reasoning", "function_call") or item.get("role") == "assistant"


def _items(body: dict[str, Any]) -> list[dict[str, Any]]:
    raw = body["input"]
    return [{"role": "user", "content": raw}] if isinstance(raw, str) else list(raw)


def _groups(items: list[dict[str, Any]]) -> list[tuple[bool, list[dict[str, Any]]]]:
    """Runs of assistant items (one harness message each) and single other items."""
    groups: list[tuple[bool, list[dict[str, Any]]]] = []
    for item in items:
        if _is_assistant(item) and groups and groups[-1][0]:
            groups[-1][1].append(item)
        else:
            groups.append((_is_assistant(item), [item]))
    return groups


def _outline(group: list[dict[str, Any]]) -> list[dict[str, Any]]:
    outline = []
    for item in group:
        if item.get("type") == "reasoning":
            outline.append(item)
        elif item.get("type") == "function_call":
            outline.append(
                {"type": "function_call", "id": item.get("id"), "call_id": item["call_id"]}
            )
        else:
            outline.append({"type": "message", "id": item.get("id")})
    return outline


def wire_to_request(body: dict[str, Any]) -> LLMRequest:
    messages = [Message.system(body["instructions"])] if body.get("instructions") else []
    for assistant, group in _groups(_items(body)):
        if assistant:
            text = "".join(_text(i["content"]) for i in group if i.get("role") == "assistant")
            calls = tuple(
                ToolCall(id=i["call_id"], name=i["name"], arguments=json.loads(i["arguments"]))
                for i in group
                if i.get("type") == "function_call"
            )
            reasoning = any(i.get("type") == "reasoning" for i in group)
            meta = {ITEMS_KEY: _outline(group)} if reasoning else None
            messages.append(Message.assistant(text, calls, meta))
            continue
        (item,) = group
        if item.get("type") == "function_call_output":
            messages.append(Message.tool(item["call_id"], item["output"]))
        elif item["role"] in ("system", "developer"):
            messages.append(Message.system(_text(item["content"])))
        else:
            messages.append(Message.user(_text(item["content"])))
    tools = tuple(
        ToolDefinition(
            name=t["name"], description=t.get("description") or "", parameters=t["parameters"]
        )
        for t in body.get("tools", ())
    )
    return LLMRequest(
        messages=tuple(messages),
        tools=tools,
        tool_choice=ToolChoice(body.get("tool_choice", "auto")),
        model=body["model"],
        max_tokens=body.get("max_output_tokens"),
    )


# --- recorded wire request -> what the adapter must send ----------------------------------


def _expected_item(item: dict[str, Any], keep_ids: bool) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "reasoning":
        keys = ("id", "type", "summary", "content", "encrypted_content")
        return {k: item[k] for k in keys if item.get(k) is not None}
    if kind == "function_call":
        wire = {"type": "function_call"}
        if keep_ids and item.get("id"):
            wire["id"] = item["id"]
        wire |= {"call_id": item["call_id"], "name": item["name"], "arguments": item["arguments"]}
        if keep_ids and item.get("id"):
            wire["status"] = "completed"
        return wire
    text = _text(item["content"])
    if keep_ids and item.get("id"):
        return {
            "type": "message", "id": item["id"], "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }  # fmt: skip
    return {"role": "assistant", "content": text}


def expected_wire(body: dict[str, Any]) -> dict[str, Any]:
    instructions = [body["instructions"]] if body.get("instructions") else []
    items: list[dict[str, Any]] = []
    for assistant, group in _groups(_items(body)):
        if assistant:
            keep_ids = any(i.get("type") == "reasoning" for i in group)
            items += [_expected_item(i, keep_ids) for i in group]
            continue
        (item,) = group
        if item.get("type") == "function_call_output":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": item["call_id"],
                    "output": item["output"],
                }
            )
        elif item["role"] in ("system", "developer"):
            instructions.append(_text(item["content"]))  # harness has one system channel
        else:
            items.append({"role": "user", "content": _text(item["content"])})
    wire: dict[str, Any] = {"include": ["reasoning.encrypted_content"], "input": items}
    if instructions:
        wire["instructions"] = "\n\n".join(instructions)
    if body.get("max_output_tokens"):
        wire["max_output_tokens"] = body["max_output_tokens"]
    wire["model"] = body["model"]
    effort = (body.get("reasoning") or {}).get("effort")
    if effort:
        wire["reasoning"] = {"effort": effort}
    wire["store"] = False
    if body.get("stream"):
        wire["stream"] = True
    if body.get("tools"):
        wire["tool_choice"] = body.get("tool_choice", "auto")
        wire["tools"] = [
            {
                "type": "function", "name": t["name"], "description": t.get("description") or "",
                "parameters": t["parameters"], "strict": False,
            }
            for t in body["tools"]
        ]  # fmt: skip
    return wire


# --- the exchange -------------------------------------------------------------------------


def run_case(loopback: Any, case: Case) -> tuple[LLMResponse | None, ProviderError | None, Any]:
    content_type = "text/event-stream" if case.streamed else "application/json"
    loopback.add(case.status, case.body, content_type=content_type, chunk_size=97)
    effort = (case.request.get("reasoning") or {}).get("effort")
    provider = OpenAIResponsesProvider(
        "unused",
        api_key=FAKE_KEY,
        base_url=f"{loopback.url}/v1",
        max_retries=0,
        stream=case.streamed,
        reasoning_effort=effort,
    )
    with provider:
        try:
            response, error = provider.complete(wire_to_request(case.request)), None
        except ProviderError as exc:
            response, error = None, exc
    assert len(loopback.requests) == 1, "the adapter must make exactly one HTTP request"
    sent = loopback.requests[0]
    assert sent.path == "/v1/responses"
    return response, error, sent.json()


def expectation(case: Case) -> Expected | ExpectedError:
    expected = EXPECTED.get(case.name)
    if expected is None:
        pytest.fail(f"corpus case {case.name} has no expectation; add one to EXPECTED")
    return expected


def check(response: LLMResponse | None, error: ProviderError | None, expected: Any) -> None:
    if isinstance(expected, ExpectedError):
        assert response is None and error is not None, "an error response must raise"
        assert error.status_code == expected.status
        assert expected.message in str(error) and "Hint:" in str(error)
        return
    assert error is None, f"unexpected ProviderError: {error}"
    assert response is not None
    if isinstance(expected.text, str):
        assert response.text == expected.text
    else:
        assert response.text.startswith(expected.text[0]) and response.text.endswith(
            expected.text[1]
        )
    assert tuple((c.id, c.name, c.arguments) for c in response.tool_calls) == expected.calls
    usage = response.usage
    got = (
        usage.input_tokens,
        usage.output_tokens,
        usage.cached_input_tokens,
        usage.reasoning_tokens,
    )
    assert got == expected.usage
    assert (response.stop_reason, response.model, response.raw_id) == (
        expected.stop_reason, expected.model, expected.raw_id,
    )  # fmt: skip
    outline = response.metadata.get(ITEMS_KEY, [])
    reasoning = [entry for entry in outline if entry["type"] == "reasoning"]
    assert len(reasoning) == expected.reasoning_items
    json.loads(json.dumps(response.metadata))  # checkpoints persist it as JSON


# The streamed cases but one run in the deep tier; the default run keeps `stream_text`.
@pytest.mark.parametrize(
    "case",
    [
        p
        if p.id is None or not p.id.startswith("stream_") or p.id == "stream_text"
        else pytest.param(*p.values, id=p.id, marks=[*p.marks, pytest.mark.deep])
        for p in case_params()
    ],
)
def test_response_maps_like_the_recording(loopback: Any, case: Case) -> None:
    response, error, _ = run_case(loopback, case)
    check(response, error, expectation(case))


@pytest.mark.parametrize("case", case_params())
def test_request_matches_the_recorded_wire_shape(loopback: Any, case: Case) -> None:
    _, _, sent = run_case(loopback, case)
    assert sent == expected_wire(case.request)


def _events(case: Case) -> list[dict[str, Any]]:
    return [
        json.loads(line[len("data: ") :])
        for line in case.body.decode("utf-8").splitlines()
        if line.startswith("data: ")
    ]


@pytest.mark.parametrize("case", case_params(streamed=True))
def test_stream_deltas_fold_to_the_terminal_response(case: Case) -> None:
    events = _events(case)
    assert events[-1]["type"] in TERMINAL_EVENTS
    assembler = EventAssembler()
    for event in events:
        assembler.add(event)
    terminal = events[-1]["response"]
    folded = from_response({**terminal, "output": assembler.folded_output()})
    final = from_response(terminal)
    assert (folded.text, folded.tool_calls, folded.stop_reason) == (
        final.text, final.tool_calls, final.stop_reason,
    )  # fmt: skip
    # The server encrypts the reasoning again for the terminal object: same items,
    # other ciphertext. The adapter sends back the terminal's.
    assert _opaque(folded.metadata) == _opaque(final.metadata)
    assert assembler.response() == final


def _opaque(metadata: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {**entry, "encrypted_content": bool(entry.get("encrypted_content"))}
        for entry in metadata.get(ITEMS_KEY, [])
    ]


@pytest.mark.parametrize("case", case_params(streamed=True))
def test_stream_gives_the_result_of_its_json_twin(case: Case) -> None:
    twin_name = TWINS.get(case.name)
    if twin_name is None:
        pytest.skip(f"{case.name} has no JSON twin in the corpus")
    twin = next(c for c in load_cases() if c.name == twin_name)
    assert {**case.request, "stream": False} == {**twin.request, "stream": False}
    streamed = from_response(_events(case)[-1]["response"])
    plain = from_response(json.loads(twin.body))
    assert streamed.stop_reason == plain.stop_reason
    assert [(c.name, c.arguments) for c in streamed.tool_calls] == [
        (c.name, c.arguments) for c in plain.tool_calls
    ]
    if streamed.stop_reason != "refusal":  # the refusal wording differs between the two
        assert streamed.text == plain.text


@pytest.mark.skipif(not FOLDER.is_dir(), reason=MISSING)
def test_every_expectation_has_a_corpus_case() -> None:
    names = {case.name for case in load_cases()}
    assert len(names) >= 24, f"expected the full Responses corpus under {FOLDER}"
    assert set(EXPECTED) == names
