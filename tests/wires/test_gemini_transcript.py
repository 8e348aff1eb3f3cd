"""A Gemini run read as a transcript: what was sent, answered, called and returned, in order."""

from __future__ import annotations

import json
from typing import Any

from harness.traffic import HttpExchange, trace_from_exchanges
from harness.view._transcript import transcript
from harness.wires.gemini.transcript import content_line

URL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
SYSTEM = {"parts": [{"text": "You are terse."}], "role": "user"}
QUESTION = {"role": "user", "parts": [{"text": "Capital of France?"}]}
CALL = {"functionCall": {"name": "get_capital", "args": {"country": "France"}}}


def _exchange(contents: list[Any], answer: dict[str, Any]) -> HttpExchange:
    body = {"contents": contents, "systemInstruction": SYSTEM}
    return HttpExchange(
        method="POST",
        url=URL,
        request_headers={"content-type": "application/json"},
        request_body=json.dumps(body).encode(),
        status=200,
        response_headers={"content-type": "application/json"},
        response_body=json.dumps(answer).encode(),
    )


def _answer(*parts: dict[str, Any]) -> dict[str, Any]:
    content = {"role": "model", "parts": list(parts)}
    return {"candidates": [{"content": content, "finishReason": "STOP"}], "modelVersion": "m"}


def test_a_tool_run_reads_in_order_with_the_error_flag() -> None:
    failed = {"functionResponse": {"name": "get_capital", "response": {"error": "try La France"}}}
    exchanges = [
        _exchange([QUESTION], _answer(CALL)),
        _exchange(
            [QUESTION, {"role": "model", "parts": [CALL]}, {"role": "user", "parts": [failed]}],
            _answer({"text": "Paris"}),
        ),
    ]
    entries = transcript(trace_from_exchanges(exchanges, mode="replay"))["entries"]
    shown = [(e["t"], e.get("role") or e.get("name"), e.get("text"), e.get("err")) for e in entries]
    assert shown == [
        ("msg", "system", "You are terse.", None),
        ("msg", "user", "Capital of France?", None),
        ("answer", None, "", None),
        ("tool", "get_capital", "try La France", True),
        ("final", None, "Paris", None),
    ]
    assert entries[2]["calls"] == [{"name": "get_capital", "args": '{"country": "France"}'}]


def test_inline_data_and_files_are_named_and_thoughts_left_out() -> None:
    content = {
        "role": "user",
        "parts": [
            {"text": "Describe "},
            {"inline_data": {"mime_type": "text/plain", "data": "aGk="}},
            {"fileData": {"fileUri": "gs://b/cat.png", "mimeType": "image/png"}},
        ],
    }
    assert content_line(content) == (
        "user",
        "Describe [inline text/plain][file gs://b/cat.png (image/png)]",
    )
    assert content_line({"role": "model", "parts": [{"text": "hi"}]}) is None
    results = {"role": "user", "parts": [{"function_response": {"name": "f", "response": {}}}]}
    assert content_line(results) is None
