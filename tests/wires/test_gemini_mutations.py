"""Mutants of recorded Gemini answers: bodies google-genai parses, changed as each operator says."""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest
from google import genai
from google.genai import types
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals.wire_mutations import body_mutants
from harness.wires.gemini.parts import fold_chunks

PATH = "/v1beta/models/gemini-3-flash-preview:generateContent"
STREAM_PATH = "/v1beta/models/gemini-3-flash-preview:streamGenerateContent"


def _response(parts: list[dict[str, Any]], reason: str = "STOP") -> dict[str, Any]:
    return {
        "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": reason}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": "gemini-3-flash-preview",
        "responseId": "r1",
    }


CALLS = _response(
    [
        {
            "functionCall": {"id": "a", "name": "read", "args": {"path": "a.txt"}},
            "thoughtSignature": "c2ln",
        },
        {"functionCall": {"id": "b", "name": "bash", "args": {"command": "ls"}}},
    ]
)
ANSWER = _response([{"text": "The code is SENTINEL-ALPHA-42.", "thoughtSignature": "c2ln"}])


def _stream(response: dict[str, Any]) -> bytes:
    """``response`` as Google streams it: a chunk per part, the finish on the last."""
    parts = response["candidates"][0]["content"]["parts"]
    chunks = [
        {"candidates": [{"content": {"role": "model", "parts": [p]}}], "responseId": "r1"}
        for p in parts
    ]
    chunks.append(
        {
            **response,
            "candidates": [
                {**response["candidates"][0], "content": {"role": "model", "parts": [{"text": ""}]}}
            ],
        }
    )
    return "".join(f"data: {json.dumps(c)}\r\n\r\n" for c in chunks).encode()


def _parsed(body: bytes, stream: bool) -> types.GenerateContentResponse:
    """What the real SDK makes of ``body``; a stream's chunks joined by the SDK's own fields."""
    headers = {"content-type": "text/event-stream" if stream else "application/json"}

    def answer(_request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers=headers, content=body)

    http = httpx2.Client(transport=httpx2.MockTransport(answer))
    client = genai.Client(api_key="AIza-test", http_options=types.HttpOptions(httpx_client=http))
    model = "gemini-3-flash-preview"
    if not stream:
        return client.models.generate_content(model=model, contents="hi")
    chunks = list(client.models.generate_content_stream(model=model, contents="hi"))
    folded = fold_chunks(
        [c.model_dump(mode="json", by_alias=True, exclude_none=True) for c in chunks]
    )
    return types.GenerateContentResponse.model_validate(folded)


def _calls(response: types.GenerateContentResponse) -> list[tuple[str | None, dict[str, Any]]]:
    return [(c.name, dict(c.args or {})) for c in response.function_calls or []]


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_call_mutants_parse_and_change_the_calls(stream: bool) -> None:
    body = _stream(CALLS) if stream else json.dumps(CALLS).encode()
    mutants = {m.id: m for m in body_mutants(STREAM_PATH if stream else PATH, body)}
    assert sorted(mutants) == [
        "corrupt_arg.1",
        "corrupt_arg.2",
        "drop_call.1",
        "drop_call.2",
        "repeat_call.1",
        "repeat_call.2",
        "stop_early.1",
        "swap_calls.1",
    ]
    parsed = {key: _parsed(m.body, stream) for key, m in mutants.items()}
    assert _calls(parsed["drop_call.1"]) == [("bash", {"command": "ls"})]
    assert [n for n, _ in _calls(parsed["swap_calls.1"])] == ["bash", "read"]
    assert _calls(parsed["corrupt_arg.1"])[0][1]["path"] != "a.txt"
    assert [n for n, _ in _calls(parsed["repeat_call.2"])] == ["read", "bash", "bash"]
    early = parsed["stop_early.1"]
    assert early.function_calls is None
    assert early.candidates and early.candidates[0].finish_reason == types.FinishReason.MAX_TOKENS


@pytest.mark.parametrize("stream", [False, True], ids=["json", "stream"])
def test_answer_mutants_drop_or_alter_the_sentinel_and_refuse(stream: bool) -> None:
    body = _stream(ANSWER) if stream else json.dumps(ANSWER).encode()
    mutants = {m.id: m for m in body_mutants(STREAM_PATH if stream else PATH, body)}
    assert sorted(mutants) == ["alter_marker.1", "drop_marker.1", "refuse.1", "stop_early.1"]
    parsed = {key: _parsed(m.body, stream) for key, m in mutants.items()}
    assert "SENTINEL-ALPHA-42" not in (parsed["drop_marker.1"].text or "")
    altered = parsed["alter_marker.1"].text or ""
    assert "SENTINEL" in altered and "SENTINEL-ALPHA-42" not in altered
    refused = parsed["refuse.1"]
    assert refused.text is None
    assert refused.candidates and refused.candidates[0].finish_reason == types.FinishReason.SAFETY


def test_errors_and_blocked_prompts_have_no_mutants() -> None:
    assert (
        body_mutants(PATH, b'{"error": {"code": 404, "message": "x", "status": "NOT_FOUND"}}') == []
    )
    blocked = {"promptFeedback": {"blockReason": "MODEL_ARMOR"}, "usageMetadata": {}}
    assert body_mutants(PATH, json.dumps(blocked)) == []
    assert body_mutants(STREAM_PATH, b"<html>502</html>") == []


_TEXT = st.text(alphabet="abcXYZ019 -", max_size=30)
_PART = st.one_of(
    st.builds(lambda t: {"text": t}, _TEXT),
    st.builds(
        lambda n, v: {"functionCall": {"name": n, "args": {"path": v}}},
        st.sampled_from(["read", "write"]),
        _TEXT,
    ),
)


@settings(max_examples=30, deadline=None)
@given(st.lists(_PART, min_size=1, max_size=5))
def test_a_streamed_mutant_folds_to_its_json_twin(parts: list[dict[str, Any]]) -> None:
    # As a non-streamed answer has them: no empty text part, no two texts in a row
    # (a stream's pieces of text fold into one part).
    joined: list[dict[str, Any]] = []
    for part in parts:
        if "text" in part and joined and "text" in joined[-1]:
            joined[-1] = {"text": joined[-1]["text"] + part["text"]}
        else:
            joined.append(part)
    response = _response([p for p in joined if p != {"text": ""}] or [{"text": "x"}])
    as_json = body_mutants(PATH, json.dumps(response))
    as_stream = body_mutants(STREAM_PATH, _stream(response))
    assert [m.id for m in as_json] == [m.id for m in as_stream]
    assert len({m.id for m in as_json}) == len(as_json)
    for plain, streamed in zip(as_json, as_stream, strict=True):
        chunks = [
            json.loads(line[5:])
            for line in streamed.body.decode().splitlines()
            if line.startswith("data:")
        ]
        twin = json.loads(plain.body)["candidates"][0]
        folded = fold_chunks(chunks)["candidates"][0]
        assert _visible(folded) == _visible(twin)
        assert folded["finishReason"] == twin["finishReason"]


def _visible(candidate: dict[str, Any]) -> tuple[str, list[Any]]:
    """What an agent reads of a candidate: its text and its calls, in order."""
    parts = (candidate.get("content") or {}).get("parts") or []
    text = "".join(p["text"] for p in parts if "text" in p)
    return text, [p["functionCall"] for p in parts if "functionCall" in p]
