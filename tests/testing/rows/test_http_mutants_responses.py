"""Mutants of Responses API traffic: derived from a committed Responses cassette and
rendered as answers the real ``openai`` SDK parses (``client.responses``)."""

from __future__ import annotations

import json
from pathlib import Path

import openai
import pytest

from harness.evals.mutants import cassette_mutants
from harness.simulator import ErrorReply, Reply, ScriptToolCall
from harness.simulator.render import render_reply, renders
from harness.testing.rows.http_mutants import cassette_api

ROOT = Path(__file__).resolve().parents[3]
CASSETTE = (
    ROOT
    / "examples/cassettes/examples/openai_agents/test_openai_agents"
    / "test_reads_the_release_code_on_responses.yaml"
)
URL = "https://api.openai.com/v1/responses"
BODY = json.dumps(
    {
        "model": "gpt-4.1-mini",
        "input": [{"role": "user", "content": "What is the release code?"}],
        "tools": [{"type": "function", "name": "read_file", "parameters": {"type": "object"}}],
    }
)


def test_a_responses_cassette_gives_mutants() -> None:
    assert cassette_api(CASSETTE) == "openai-responses"
    mutants = cassette_mutants(CASSETTE, "openai-responses")
    assert len(mutants) > 1  # the control and at least one operator


def _parsed(reply: Reply | ErrorReply) -> tuple[int, object]:
    answer = render_reply(URL, BODY, reply)
    if answer.status >= 400:
        return answer.status, json.loads(answer.body)["error"]["message"]
    response = openai.types.responses.Response.model_validate_json(answer.body)
    return answer.status, response


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Reply(text="The release code is RELEASE-CODE-9T2W."), "RELEASE-CODE-9T2W"),
        (
            Reply(tool_calls=(ScriptToolCall(name="read_file", arguments={"path": "x"}),)),
            "read_file",
        ),
        (ErrorReply(status=500, message="mutant: server error"), "mutant: server error"),
    ],
    ids=["text", "tool-call", "error"],
)
def test_a_mutated_reply_is_rendered_as_the_responses_api_answers(
    reply: Reply | ErrorReply, expected: str
) -> None:
    assert renders(URL)
    status, parsed = _parsed(reply)
    if isinstance(reply, ErrorReply):
        assert (status, parsed) == (500, expected)
        return
    assert status == 200 and isinstance(parsed, openai.types.responses.Response)
    if reply.tool_calls:
        (call,) = [item for item in parsed.output if item.type == "function_call"]
        assert (call.name, json.loads(call.arguments)) == (expected, {"path": "x"})
    else:
        assert expected in parsed.output_text
