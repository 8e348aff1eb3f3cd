"""Traffic traces of the cassettes other projects committed (real api.openai.com /
api.anthropic.com traffic, in ``shared/corpus`` beside the repo).

Every whole cassette must build a trace that validates against the trace schema;
several are checked span by span against what the recording holds.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harness.testing import HttpExchange, assert_trace_shape, trace_from_cassette
from harness.testing import trace_from_exchanges as from_exchanges
from harness.tracing import TraceTree, outline_text, validate_trace_document

ROOT = Path(__file__).resolve().parents[2]
CORPUS = next(
    (
        base
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (base / "cassettes").is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
)
CASSETTES = CORPUS / "cassettes"
MISSING = (
    f"needs the shared corpus (real recorded traffic, kept outside this repo) at {CORPUS}: "
    "check out ../shared/corpus beside the repo or set HARNESS_CORPUS_DIR"
)
needs_corpus = pytest.mark.skipif(not CASSETTES.is_dir(), reason=MISSING)
URLS = {
    "openai": "https://api.openai.com/v1/chat/completions",
    "anthropic": "https://api.anthropic.com/v1/messages",
    "openai-responses": "https://api.openai.com/v1/responses",
}


def _whole_cassettes() -> list[Any]:
    if not CASSETTES.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    files = sorted(CASSETTES.rglob("*.yaml"))
    return [pytest.param(p, id=p.relative_to(CASSETTES).as_posix()[:40]) for p in files]


def _trace(name: str) -> TraceTree:
    return trace_from_cassette(next(CASSETTES.rglob(f"{name}__*.yaml")))


def _exchange(provider: str, case: str) -> HttpExchange:
    """One corpus exchange (``<provider>/<case>.json``, or a stream with its meta file)."""
    folder = CORPUS / provider
    meta = json.loads((folder / f"{case}.json").read_text("utf-8"))
    if "response_file" in meta:
        body, kind = (folder / meta["response_file"]).read_bytes(), "text/event-stream"
    else:
        body, kind = json.dumps(meta["response"]).encode(), "application/json"
    return HttpExchange(
        method="POST",
        url=URLS[provider],
        request_headers={"content-type": "application/json"},
        request_body=json.dumps(meta["request"]).encode(),
        status=meta["response_status"],
        response_headers={"content-type": kind},
        response_body=body,
    )


@needs_corpus
@pytest.mark.parametrize("path", _whole_cassettes())
def test_every_whole_cassette_builds_a_valid_trace(path: Path) -> None:
    tree = trace_from_cassette(path)
    validate_trace_document(json.loads(tree.to_json()), source=str(path))
    assert TraceTree.from_json(tree.to_json()) == tree
    calls = tree.find_all("llm.call")
    assert calls and tree.root.attributes["llm_calls"] == len(calls)
    assert all(call.attributes["model"] for call in calls)
    # Exchanges that are no model call: Gemini's cachedContents create and delete
    # (G24) and Vertex's OAuth token refresh (G29).
    other = {"G24": 2, "G29": 1}.get(path.name[:3], 0)
    assert tree.root.attributes["other_exchanges"] == other
    replay = trace_from_cassette(path, mode="replay")
    validate_trace_document(json.loads(replay.to_json()), source=str(path))
    assert outline_text(replay.root) == outline_text(tree.root)


@needs_corpus
def test_a_pydantic_ai_parsed_body_tool_loop() -> None:
    tree = _trace("O10")  # pydantic-ai's own serializer: bodies under parsed_body
    assert_trace_shape(
        tree, "agent.run\n  agent.step\n    llm.call\n    tool.call get_temperature\n"
        "  agent.step\n    llm.call",
    )  # fmt: skip
    first, second = tree.find_all("llm.call")
    # 17: '{"city": "Tokyo"}', the arguments as harness's executor measures them
    (asked,) = first.attributes["tool_calls"]
    assert asked["id"] == "call_bhZkmIKKItNGJ41whHUHB7p9" and asked["name"] == "get_temperature"
    assert asked["argument_chars"] == 17
    assert (first.attributes["input_tokens"], first.attributes["output_tokens"]) == (50, 15)
    assert first.attributes["stop_reason"] == "tool_calls"
    assert second.attributes["stop_reason"] == "stop"
    tool = tree.one("tool.call", "get_temperature")
    assert tool.attributes["tool_call_id"] == "call_bhZkmIKKItNGJ41whHUHB7p9"
    assert tool.attributes["argument_hash"] == asked["argument_hash"]
    assert tool.attributes["argument_keys"] == ["city"]
    assert "is_error" not in tool.attributes  # Chat Completions has no error flag
    assert tool.attributes["answered_in"] == 1
    assert tree.parent(tool) is tree.parent(first)


@needs_corpus
def test_parallel_responses_calls_sit_in_the_step_that_asked_for_them() -> None:
    tree = _trace("H03")  # Agent Framework: the follow-up holds only previous_response_id
    assert_trace_shape(
        tree, "agent.run\n  agent.step\n    llm.call\n    tool.call get_temperature\n"
        "    tool.call get_humidity\n  agent.step\n    llm.call",
    )  # fmt: skip
    indexes = [s.attributes["tool_call_index"] for s in tree.find_all("tool.call")]
    assert indexes == [0, 1]
    assert tree.one("llm.call", exchange_index=0).attributes["provider"] == "openai-responses"


@needs_corpus
def test_the_same_loop_recorded_three_times_is_three_runs_in_order() -> None:
    tree = _trace("R05")
    step = "  agent.step\n    llm.call\n    tool.call secret_retrieval_tool\n" * 1
    loop = step + "    tool.call secret_retrieval_tool\n  agent.step\n    llm.call\n"
    assert_trace_shape(tree, "agent.run\n" + loop * 3)
    assert tree.root.attributes["tool_calls"] == 6


@needs_corpus
def test_an_agent_used_as_a_tool_nests_as_a_subagent_run() -> None:
    tree = _trace("H02")  # Agents SDK: tool_agent runs another agent before its result
    assert_trace_shape(
        tree, "agent.run\n  agent.step\n    llm.call\n    tool.call tool_agent\n"
        "      subagent.run\n        llm.call\n  agent.step\n    llm.call",
    )  # fmt: skip
    inner = tree.one("llm.call", within="subagent.run")
    assert inner.attributes["tool_call_count"] == 0


@needs_corpus
def test_a_client_that_answers_by_item_id_still_answers_the_call() -> None:
    tree = _trace("R02")  # pydantic-ai sent the fc_... item id back as call_id
    tool = tree.one("tool.call", "get_capital")
    assert tool.attributes["tool_call_id"] == "call_kL0PCQV7M2WMoVX8V8OtYSAL"
    assert tool.attributes["answered_in"] == 1
    assert [c.attributes["stream"] for c in tree.find_all("llm.call")] == [True, True]


@needs_corpus
def test_a_new_prompt_to_the_same_agent_is_not_a_subagent() -> None:
    tree = _trace("H05")  # the first call's tool call is never answered
    assert_trace_shape(tree, "agent.run\n  agent.step\n    llm.call\n  agent.step\n    llm.call")
    first = tree.find_all("llm.call")[0]
    assert first.attributes["tool_call_count"] == 1
    assert tree.find_all("llm.call")[1].attributes["cached_input_tokens"] == 1152


@needs_corpus
def test_a_result_for_a_call_the_recording_never_asked_for() -> None:
    tree = _trace("A09")  # the test wrote the tool_use / tool_result history by hand
    assert_trace_shape(tree, "agent.run\n  tool.call get_weather\n  agent.step\n    llm.call")
    tool = tree.one("tool.call")
    assert tool.attributes["asked_in_recording"] is False
    assert tool.attributes["is_error"] is False  # Messages has the flag: it was not set


@needs_corpus
@pytest.mark.parametrize(
    ("name", "usage"),
    [
        ("A02", (2066, 100, 2055, 0)),  # input_tokens 11 + cache reads 2055
        ("O03", (1420, 100, 1280, 0)),
        ("R03", (2211, 2050, 2048, 0)),
    ],
    ids=["anthropic-cache-read", "openai-stream-cached", "responses-reasoning-cached"],
)
def test_usage_is_normalised_as_harness_does(name: str, usage: tuple[int, ...]) -> None:
    tree = _trace(name)
    keys = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens")
    totals = [sum(c.attributes[k] for c in tree.find_all("llm.call")) for k in keys]
    assert tuple(totals) == usage
    assert tree.root.attributes["input_tokens"] == usage[0]


@needs_corpus
@pytest.mark.parametrize(
    ("provider", "case", "expected"),
    [
        ("openai-responses", "usage_cached_and_reasoning_tokens", (1219, 100, 1216, 20)),
        ("openai-responses", "stream_reasoning_summary", (32, 839, 0, 832)),
        ("openai", "stream_tool_calls_parallel", (364, 40, 0, 0)),
        ("anthropic", "stream_thinking_tool_use", (597, 101, 0, None)),
    ],
    ids=["responses-json", "responses-stream", "chat-stream", "messages-stream"],
)
def test_reasoning_tokens_are_kept_apart_where_the_wire_has_them(
    provider: str, case: str, expected: tuple[int, int, int, int | None]
) -> None:
    name = case if (CORPUS / provider / f"{case}.json").exists() else f"{case}.meta"
    call = from_exchanges([_exchange(provider, name)]).one("llm.call")
    a = call.attributes
    got = (a["input_tokens"], a["output_tokens"], a["cached_input_tokens"])
    assert (*got, a.get("reasoning_tokens")) == expected


@needs_corpus
@pytest.mark.parametrize(
    ("provider", "case", "kind", "words"),
    [
        ("openai", "error_404_model_not_found", "invalid_request_error", "does not exist"),
        ("anthropic", "error_404_not_found", "not_found_error", "claude-sonet-4-5"),
        ("openai-responses", "error_400_model_not_found", "invalid_request_error", "gpt-5.2"),
    ],
    ids=["chat", "messages", "responses"],
)
def test_an_error_answer_is_an_error_span_with_its_message(
    provider: str, case: str, kind: str, words: str
) -> None:
    tree = from_exchanges([_exchange(provider, case)])
    call = tree.one("llm.call", status="error")
    assert call.attributes["error_type"] == kind
    assert words in call.attributes["error_message"]
    assert call.attributes["http_status"] >= 400
    assert tree.one("agent.step").status == "error"
    assert tree.root.attributes["errors"] == 1


@needs_corpus
def test_a_responses_stream_cut_before_its_last_event_keeps_what_it_holds() -> None:
    whole = _exchange("openai-responses", "stream_function_call.meta")
    body = whole.response_body
    cut = body[: body.index(b"event: response.completed")]
    tree = from_exchanges([HttpExchange(**{**whole.__dict__, "response_body": cut})])
    call = tree.one("llm.call")
    assert [t["name"] for t in call.attributes["tool_calls"]] == ["get_capital"]
    assert call.attributes["stop_reason"] == "incomplete"
