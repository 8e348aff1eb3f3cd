"""Conformance over real Bedrock traffic: ``shared/corpus/cassettes/bedrock`` (see its README).

24 cassettes pydantic-ai recorded from Bedrock Runtime with botocore: 26
``converse`` calls (2 of them HTTP 400) and 9 ``converse-stream`` calls (8
binary ``application/vnd.amazon.eventstream`` streams, 1 HTTP 400 JSON error).
Each file decodes into the traffic trace: one ``llm.call`` per request, with
provider ``bedrock``, the model of its URL, and the tool calls, usage and stop
reason the recorded bodies say. Those are read here from the raw YAML,
independently of the decoder (the streams with a frame splitter of this file's
own that trusts the lengths and checks nothing); every ``toolResult`` sent back
is a ``tool.call``. Several files are then checked exactly against what the
README says they hold.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
import yaml

from harness.core.output_tools import is_output_tool
from harness.evals.provenance import cassette_source
from harness.testing import trace_from_cassette
from harness.testing.rows.traffic_rows import summarize_traffic
from harness.tracing import TraceSpan, TraceTree
from harness.view._transcript import transcript
from harness.wires.bedrock.eventstream import decode_frames

ROOT = Path(__file__).resolve().parents[2]
# shared/ sits beside the repo (CI, the main checkout); a worktree is one level deeper.
CORPUS = next(
    (
        base / "cassettes" / "bedrock"
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (base / "cassettes" / "bedrock").is_dir()
    ),
    ROOT.parent / "shared" / "corpus" / "cassettes" / "bedrock",
)
MISSING = (
    "needs the shared corpus's Bedrock cassettes (real Bedrock Runtime traffic that "
    f"pydantic-ai recorded, kept outside this repo) at {CORPUS}: check out ../shared/corpus "
    "beside the repo or set HARNESS_CORPUS_DIR"
)
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=MISSING)


def _files() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=MISSING))]
    return [pytest.param(path, id=path.name[:3]) for path in sorted(CORPUS.glob("B*.yaml"))]


def _path(case: str) -> Path:
    return next(CORPUS.glob(f"{case}__*.yaml"))


def _interactions(path: Path) -> list[dict[str, Any]]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    interactions: list[dict[str, Any]] = data["interactions"]
    return interactions


def _events(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """``(event type, payload)`` of each frame, split by its lengths alone."""
    events, at = [], 0
    while at < len(body):
        total, headers_length = struct.unpack_from(">II", body, at)
        headers, h = {}, at + 12
        while h < at + 12 + headers_length:
            size = body[h]
            name = body[h + 1 : h + 1 + size].decode()
            (length,) = struct.unpack_from(">H", body, h + 2 + size)
            headers[name] = body[h + 4 + size : h + 4 + size + length].decode()
            h += 4 + size + length
        events.append((headers[":event-type"], json.loads(body[h : at + total - 4])))
        at += total
    return events


def _answer(interaction: dict[str, Any]) -> dict[str, Any]:
    """The recorded answer: ``{stopReason, usage, uses: [toolUse]}`` or ``{message}``."""
    response = interaction["response"]
    if "parsed_body" in response:
        body: dict[str, Any] = response["parsed_body"]
        if "output" not in body:
            return body
        content = body["output"]["message"]["content"]
        uses = [b["toolUse"] for b in content if "toolUse" in b]
        return {"stopReason": body["stopReason"], "usage": body["usage"], "uses": uses}
    answer: dict[str, Any] = {"uses": []}
    started: dict[int, dict[str, Any]] = {}
    for kind, payload in _events(response["body"]["string"]):
        if kind == "contentBlockStart" and "toolUse" in payload["start"]:
            started[payload["contentBlockIndex"]] = {**payload["start"]["toolUse"], "input": ""}
        elif kind == "contentBlockDelta" and "toolUse" in payload["delta"]:
            started[payload["contentBlockIndex"]]["input"] += payload["delta"]["toolUse"]["input"]
        elif kind == "messageStop":
            answer["stopReason"] = payload["stopReason"]
        elif kind == "metadata":
            answer["usage"] = payload["usage"]
    for index in sorted(started):
        use = started[index]
        answer["uses"].append({**use, "input": json.loads(use["input"] or "{}")})
    return answer


def _asked(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [u for u in answer["uses"] if u.get("type") != "server_tool_use"]


def _sent_results(interactions: list[dict[str, Any]]) -> dict[str, str]:
    """toolUseId -> status of every toolResult a user message sent."""
    found: dict[str, str] = {}
    for interaction in interactions:
        sent = json.loads(interaction["request"]["body"])
        for message in sent["messages"]:
            if message["role"] != "user":
                continue
            for block in message["content"]:
                if "toolResult" in block:
                    result = block["toolResult"]
                    found[result["toolUseId"]] = result.get("status", "success")
    return found


@needs_corpus
@pytest.mark.parametrize("path", _files())
def test_every_call_decodes_as_recorded(path: Path) -> None:
    interactions = _interactions(path)
    tree = trace_from_cassette(path)
    calls = sorted(tree.find_all("llm.call"), key=lambda s: s.attributes["exchange_index"])
    assert len(calls) == len(interactions)
    outputs: set[str] = set()  # output tools' calls (the answer) get no tool.call
    for interaction, call in zip(interactions, calls, strict=True):
        facts = call.attributes
        uri = urlsplit(interaction["request"]["uri"])
        assert facts["provider"] == "bedrock"
        assert facts["model"] == unquote(uri.path.split("/")[2])
        assert facts["stream"] is uri.path.endswith("/converse-stream")
        status = interaction["response"]["status"]["code"]
        assert facts["http_status"] == status
        answer = _answer(interaction)
        if status >= 400:
            assert call.status == "error"
            assert facts["error_message"] == answer["message"]
            continue
        usage = answer["usage"]
        read = usage.get("cacheReadInputTokens", 0)
        written = usage.get("cacheWriteInputTokens", 0)
        assert facts["stop_reason"] == answer["stopReason"]
        assert facts["input_tokens"] == usage["inputTokens"] + read + written
        assert facts["output_tokens"] == usage["outputTokens"]
        assert (facts["cached_input_tokens"], facts["cache_write_input_tokens"]) == (read, written)
        asked = _asked(answer)
        outputs.update(u["toolUseId"] for u in asked if is_output_tool(u["name"]))
        assert [(c["id"], c["name"]) for c in facts["tool_calls"]] == [
            (u["toolUseId"], u["name"]) for u in asked
        ]
        for use, shown in zip(asked, facts["tool_calls"], strict=True):
            assert shown["argument_chars"] == len(
                json.dumps(use["input"], sort_keys=True, ensure_ascii=False)
            )
    results = _sent_results(interactions)
    tools = {span.attributes["tool_call_id"]: span for span in tree.find_all("tool.call")}
    assert set(tools) == set(results) - outputs
    for call_id, status in results.items():
        if call_id in outputs:
            continue
        assert tools[call_id].attributes["is_error"] is (status == "error")


def _one(tree: TraceTree, index: int) -> TraceSpan:
    return tree.one("llm.call", exchange_index=index)


@needs_corpus
def test_a_streamed_tool_loop() -> None:
    tree = trace_from_cassette(_path("B03"))
    first, second = _one(tree, 0), _one(tree, 1)
    assert first.attributes["stream"] and first.attributes["stop_reason"] == "tool_use"
    (asked,) = first.attributes["tool_calls"]
    assert asked["name"] == "get_temperature" and asked["id"].startswith("tooluse_")
    tool = tree.one("tool.call", "get_temperature")
    assert tool.attributes["argument_keys"] == ["city"]
    assert tool.attributes["argument_hash"] == asked["argument_hash"]
    assert tool.attributes["is_error"] is False and tool.attributes["answered_in"] == 1
    assert second.attributes["stop_reason"] == "end_turn"
    assert tree.parent(tool) is tree.parent(first)


@needs_corpus
def test_a_tool_result_with_status_error_is_an_error() -> None:
    tree = trace_from_cassette(_path("B04"))
    tool = tree.one("tool.call", "get_capital")
    assert tool.status == "error" and tool.attributes["is_error"] is True


@needs_corpus
def test_max_tokens_is_the_stop_reason() -> None:
    call = _one(trace_from_cassette(_path("B09")), 0)
    assert call.attributes["stop_reason"] == "max_tokens"
    assert call.attributes["output_tokens"] == 5


@needs_corpus
@pytest.mark.parametrize("case", ["B10", "B11"])
def test_a_bad_model_id_is_an_error_span(case: str) -> None:
    tree = trace_from_cassette(_path(case))
    call = _one(tree, 0)
    assert call.status == "error" and call.attributes["http_status"] == 400
    assert call.attributes["error_message"] == "The provided model identifier is invalid."
    assert call.attributes["model"] == "us.does-not-exist-model-v1:0"
    assert tree.root.attributes["errors"] == 1


@needs_corpus
def test_a_400_in_the_middle_of_a_conversation() -> None:
    tree = trace_from_cassette(_path("B12"))
    assert _one(tree, 0).status == "ok"
    failed = _one(tree, 1)
    assert failed.status == "error"
    assert "extraneous key [toolResult]" in failed.attributes["error_message"]
    assert tree.one("tool.call", "get_file").attributes["tool_call_id"].startswith("tooluse_")


@needs_corpus
def test_cache_writes_then_reads() -> None:
    tree = trace_from_cassette(_path("B13"))
    write, read = _one(tree, 0).attributes, _one(tree, 1).attributes
    # inputTokens 2 excludes the cache: harness's input counts it (2 + 1322).
    assert (write["input_tokens"], write["cache_write_input_tokens"]) == (1324, 1322)
    assert (read["input_tokens"], read["cached_input_tokens"]) == (1324, 1322)
    assert write["cached_input_tokens"] == read["cache_write_input_tokens"] == 0


@needs_corpus
def test_server_side_code_execution_is_not_asked_of_the_agent() -> None:
    for case in ("B15", "B16"):
        call = _one(trace_from_cassette(_path(case)), 0)
        names = [c["name"] for c in call.attributes["tool_calls"]]
        assert names == ["final_result"], case  # not nova_code_interpreter


@needs_corpus
def test_kimi_tool_ids_and_an_inference_profile_arn() -> None:
    kimi = trace_from_cassette(_path("B21"))
    (asked,) = _one(kimi, 0).attributes["tool_calls"]
    assert asked["id"] == "functions.get_temperature:0"
    assert kimi.one("tool.call", "get_temperature").attributes["answered_in"] == 1
    arn = _one(trace_from_cassette(_path("B22")), 0).attributes["model"]
    assert arn == (
        "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/mi1dadi0g15f"
    )


@needs_corpus
def test_reasoning_streams_fold_into_their_text() -> None:
    for case in ("B07", "B08", "B17"):
        call = _one(trace_from_cassette(_path(case)), 0)
        assert call.attributes["stop_reason"] == "end_turn" and call.attributes["text_chars"] > 0


@needs_corpus
def test_every_recorded_stream_frame_checks_out() -> None:
    streams = [
        i["response"]["body"]["string"]
        for path in sorted(CORPUS.glob("B*.yaml"))
        for i in _interactions(path)
        if "body" in i["response"] and isinstance(i["response"]["body"]["string"], bytes)
    ]
    assert len(streams) == 8
    frames = [f for body in streams for f in decode_frames(body)]
    assert len(frames) == 142  # the README's count, every CRC valid
    assert {f.message_type for f in frames} == {"event"}
    assert {str(f.headers[":content-type"]) for f in frames} == {"application/json"}


class _Request:
    def __init__(self, request: dict[str, Any]) -> None:
        self.method, self.uri, self.body = request["method"], request["uri"], request["body"]


@needs_corpus
def test_eval_rows_count_bedrock_calls_usage_and_tool_calls() -> None:
    exchanges = [(_Request(i["request"]), i["response"]) for i in _interactions(_path("B13"))]
    summary = summarize_traffic(exchanges)
    assert summary.provider == "bedrock"
    assert summary.model == "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
    assert summary.llm_calls == 2
    assert summary.usage.input_tokens == 2 * 1324
    assert summary.usage.cached_input_tokens == summary.usage.cache_write_input_tokens == 1322
    streamed = [(_Request(i["request"]), i["response"]) for i in _interactions(_path("B03"))]
    fields = summarize_traffic(streamed).row_fields()
    assert (fields["provider"], fields["llm_calls"], fields["tool_calls"]) == ("bedrock", 2, 1)
    assert fields["input_tokens"] == 471 + 577 and fields["output_tokens"] == 91 + 18


@needs_corpus
def test_the_transcript_reads_converse_messages() -> None:
    entries = transcript(trace_from_cassette(_path("B12"), mode="replay"))["entries"]
    kinds = [(e["t"], e.get("role") or e.get("name")) for e in entries]
    assert kinds == [("msg", "user"), ("answer", None), ("tool", "get_file"), ("error", None)]
    assert entries[2]["text"] == "[document pdf]"
    image = transcript(trace_from_cassette(_path("B24"), mode="replay"))["entries"]
    asked = next(e for e in image if e["t"] == "msg" and e.get("role") == "user")
    assert asked["text"].endswith("[image (jpeg)]What fruit is in the photo? Answer with one word.")


@needs_corpus
@pytest.mark.parametrize("path", _files())
def test_every_file_is_labelled_live(path: Path) -> None:
    assert cassette_source(path).value == "live"  # bedrock-runtime.us-east-1.amazonaws.com
