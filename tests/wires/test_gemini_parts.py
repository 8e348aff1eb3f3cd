"""Gemini's wire JSON read and folded, and matched in either key spelling (property tests)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import Message
from harness.core.messages import Role
from harness.recording import normalize_body
from harness.recording._matching import BodyNormalizer
from harness.wires.gemini.parts import fold_chunks, model_of_path
from harness.wires.gemini.provider import CONTENT_KEY, from_gemini_response, to_gemini_contents

GEMINI = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
CHAT = "https://api.openai.com/v1/chat/completions"

_WORD = st.text(alphabet="abcdefgh", min_size=1, max_size=6)
_SNAKE_KEY = st.lists(_WORD, min_size=1, max_size=3).map("_".join)
_LEAF = st.one_of(st.integers(), st.text(max_size=8), st.booleans())
_JSON = st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_SNAKE_KEY, inner, max_size=3)
    ),
    max_leaves=12,
)


def _camel(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            re.sub(r"_([a-z])", lambda m: m.group(1).upper(), k): _camel(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_camel(v) for v in value]
    return value


@settings(max_examples=30, deadline=None)
@given(st.dictionaries(_SNAKE_KEY, _JSON, min_size=1, max_size=4))
def test_a_gemini_body_matches_in_either_key_spelling(body: dict[str, Any]) -> None:
    camel = _camel(body)
    # Two snake keys may fold onto one camel key; such a body is not one spelling of the other.
    if json.dumps(camel).count(":") != json.dumps(body).count(":"):
        return
    normalizer = BodyNormalizer()
    snake_key = normalizer.key("POST", GEMINI, json.dumps(body))
    assert normalizer.key("POST", GEMINI, json.dumps(camel)) == snake_key
    # Other wires still compare bodies as sent.
    if camel != body:
        assert normalizer.key("POST", CHAT, json.dumps(camel)) != normalizer.key(
            "POST", CHAT, json.dumps(body)
        )
        assert normalize_body(json.dumps(camel)) != normalize_body(json.dumps(body))


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=60), st.lists(st.integers(1, 59), max_size=6))
def test_a_stream_cut_anywhere_folds_to_one_text_and_the_last_usage(
    text: str, cuts: list[int]
) -> None:
    points = sorted({c for c in cuts if c < len(text)})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    chunks = [
        {
            "candidates": [{"content": {"role": "model", "parts": [{"text": piece}]}}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": n},
        }
        for n, piece in enumerate(pieces, start=1)
    ]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    response = from_gemini_response(fold_chunks(chunks))
    assert response.text == text
    assert response.usage.output_tokens == len(pieces)
    assert response.stop_reason == "STOP"


def test_a_signed_piece_keeps_its_signature_on_the_folded_part() -> None:
    chunks = [
        {"candidates": [{"content": {"parts": [{"text": "Par", "thoughtSignature": "c2ln"}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "is"}]}, "finishReason": "STOP"}]},
    ]
    parts = fold_chunks(chunks)["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "Paris", "thoughtSignature": "c2ln"}]


def test_the_model_is_read_from_gemini_and_vertex_paths() -> None:
    assert model_of_path("/v1beta/models/gemini-2.5-flash:streamGenerateContent") == (
        "gemini-2.5-flash"
    )
    vertex = (
        "/v1beta1/projects/p/locations/global/publishers/google/models/gemini-3:generateContent"
    )
    assert model_of_path(vertex) == "gemini-3"
    assert model_of_path("/v1beta/cachedContents") is None


def test_kept_content_survives_a_checkpoint_and_goes_back_verbatim() -> None:
    signed = {"functionCall": {"name": "read", "args": {"path": "a"}}, "thoughtSignature": "c2ln"}
    data = {
        "candidates": [{"content": {"role": "model", "parts": [signed]}, "finishReason": "STOP"}],
        "responseId": "r9",
    }
    answer = from_gemini_response(data)
    (call,) = answer.tool_calls
    assert call.id == "r9-0"  # gemini-2.x calls carry no id
    message = Message(role=Role.ASSISTANT, tool_calls=answer.tool_calls, metadata=answer.metadata)
    restored = Message.model_validate_json(message.model_dump_json())
    _, contents = to_gemini_contents((Message.user("go"), restored, Message.tool("r9-0", "x")))
    assert contents[1] == {"role": "model", "parts": [signed]}
    assert contents[2]["parts"] == [
        {"functionResponse": {"name": "read", "response": {"output": "x"}}}
    ]
    assert CONTENT_KEY in restored.metadata
