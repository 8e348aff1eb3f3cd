"""Body-level mutants of Responses API answers parse in the real SDK and change the answer.

Each mutant body is served by an in-memory transport to ``openai.OpenAI`` under
``OpenAIResponsesProvider`` (JSON and SSE alike); the mapped result must differ
from the original's in the way the operator says.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.core import LLMRequest, LLMResponse, Message
from harness.evals.mutations import REFUSAL
from harness.evals.wire_mutations import body_mutants
from harness.wires.openai_responses.events import stream_events
from harness.wires.openai_responses.mutations import responses_body_mutants
from harness.wires.openai_responses.provider import OpenAIResponsesProvider

PROBE = LLMRequest(messages=(Message.user("probe"),))


def _parse(body: bytes, stream: bool) -> LLMResponse:
    kind = "text/event-stream" if stream else "application/json"

    def answer(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": kind}, content=body, request=request)

    with httpx2.Client(transport=httpx2.MockTransport(answer)) as http:
        sdk = openai.OpenAI(api_key="sk-x", base_url="http://127.0.0.1/v1", http_client=http)
        return OpenAIResponsesProvider("m", client=sdk, stream=stream).complete(PROBE)


def _response(calls: list[tuple[str, dict[str, Any]]], text: str) -> dict[str, Any]:
    output: list[dict[str, Any]] = [
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAAx"}
    ]
    if text:
        output.append(
            {
                "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        )  # fmt: skip
    for n, (name, arguments) in enumerate(calls):
        output.append(
            {
                "type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
                "arguments": json.dumps(arguments), "status": "completed",
            }
        )  # fmt: skip
    return {
        "id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
        "model": "gpt-5-mini", "output": output,
        "usage": {
            "input_tokens": 9, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 2},
        },
    }  # fmt: skip


def _sse(response: dict[str, Any]) -> bytes:
    return "".join(
        f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in stream_events(response)
    ).encode()


CALLS = [("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})]


@pytest.mark.parametrize(
    "stream", [False, pytest.param(True, marks=pytest.mark.deep)], ids=["json", "sse"]
)
def test_every_operator_mutates_calls_and_answers(stream: bool) -> None:
    tools, final = _response(CALLS, ""), _response([], "The marker is SENTINEL-ORBIT-4417.")
    encode = _sse if stream else (lambda r: json.dumps(r).encode())
    by_id: dict[str, LLMResponse] = {}
    for response in (tools, final):
        original = _parse(encode(response), stream)
        for mutant in body_mutants("/v1/responses", encode(response)):
            mutated = _parse(mutant.body, stream)
            assert mutated != original, mutant.id
            by_id[f"{'calls' if response is tools else 'final'}:{mutant.id}"] = mutated
    assert [c.arguments for c in by_id["calls:drop_call.1"].tool_calls] == [{"path": "b.txt"}]
    assert [c.arguments["path"] for c in by_id["calls:swap_calls.1"].tool_calls] == [
        "b.txt",
        "a.txt",
    ]
    assert by_id["calls:corrupt_arg.1"].tool_calls[0].arguments == {"path": "mutant-a.txt"}
    assert len(by_id["calls:repeat_call.2"].tool_calls) == 3
    assert by_id["calls:stop_early.1"].stop_reason == "max_output_tokens"
    assert by_id["final:drop_marker.1"].text == "The marker is ."
    assert by_id["final:alter_marker.1"].text == "The marker is SENTINEL-ORBIT-5528."
    assert (by_id["final:refuse.1"].text, by_id["final:refuse.1"].stop_reason) == (
        REFUSAL,
        "refusal",
    )
    # the reasoning item rides along unchanged, so a replayed history stays valid
    assert all(r.metadata for r in by_id.values())


def test_other_paths_and_unparseable_bodies_have_no_mutants() -> None:
    assert body_mutants("/v1/chat/completions", b'{"choices": []}') == []
    assert responses_body_mutants(b"<html>502</html>") == []
    assert responses_body_mutants(b'{"error": {"message": "x"}}') == []


@settings(max_examples=40, deadline=None)
@given(
    calls=st.lists(
        st.tuples(
            st.sampled_from(["read", "write", "bash"]),
            st.dictionaries(
                st.sampled_from(["path", "content", "command"]), st.text(max_size=12), max_size=3
            ),
        ),
        max_size=3,
    ),
    text=st.text(max_size=40),
)
def test_mutants_are_valid_bodies_that_differ(calls: list[Any], text: str) -> None:
    response = _response(calls, text)
    for mutant in responses_body_mutants(json.dumps(response)):
        mutated = json.loads(mutant.body)
        assert mutated != response, mutant.id
        assert isinstance(mutated["output"], list)
        assert mutant.id.startswith(mutant.operator + ".")
