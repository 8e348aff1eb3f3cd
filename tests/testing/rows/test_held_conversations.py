"""Server-held conversations (issue #42 item 5): Responses' ``previous_response_id`` and
the Anthropic SDK tool runner's message threads, answered by the simulator, recorded,
replayed offline, traced as one conversation and mutated with ``--harness-mutants``."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import openai
import pytest
from anthropic import beta_tool
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.evals import load_report
from harness.evals.request_mutants import is_request_operator
from harness.simulator import Reply, ScriptToolCall, SimulatorServer
from harness.simulator.render import HeldConversations, render_reply
from harness.traffic._threads import Call, Step, place_calls
from harness.wires.anthropic.traffic import read_messages_request, read_messages_response
from harness.wires.openai_responses import simulator as _responses
from tests.testing.sim_scripts import read_notes_rule

# One worker imports the heavy SDK for all of this module (see the root conftest).
pytestmark = pytest.mark.xdist_group("agent-frameworks")

CODE = "RELEASE-CODE-7H3Q"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        read_notes_rule(),
        # Reads every tool result of the conversation, the held part included.
        {"fill": "RELEASE-CODE-[A-Z0-9]+", "reply": "The release code is {match}."},
    ],
    "turns": ["nothing to read"],
    "when_exhausted": "repeat_last",
}
TOOLS = [
    {
        "type": "function",
        "name": "read_file",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    }
]


@pytest.fixture
def clients(sim: SimulatorServer) -> Any:
    """An openai and an anthropic client on the simulator, closed after the test."""
    with (
        openai.OpenAI(base_url=f"{sim.url}/v1", api_key="sk-test-held", max_retries=0) as oa,
        anthropic.Anthropic(base_url=sim.url, api_key="sk-test-held", max_retries=0) as an,
    ):
        yield oa, an


def test_a_previous_response_id_continues_the_stored_conversation(clients: Any) -> None:
    client = clients[0]
    first = client.responses.create(model="gpt-4.1-mini", input="the code?", tools=TOOLS)
    (call,) = [item for item in first.output if item.type == "function_call"]
    result = {"type": "function_call_output", "call_id": call.call_id, "output": CODE}
    second = client.responses.create(
        model="gpt-4.1-mini", previous_response_id=first.id, input=[result], tools=TOOLS
    )
    assert second.output_text == f"The release code is {CODE}."
    assert second.previous_response_id == first.id
    # A later plain turn still sees the tool result the server holds.
    third = client.responses.create(model="gpt-4.1-mini", previous_response_id=second.id, input="?")
    assert CODE in third.output_text
    assert third.usage is not None and second.usage is not None
    assert third.usage.input_tokens > second.usage.input_tokens  # billed for the whole


def test_an_unknown_or_unstored_previous_response_id_is_the_real_apis_400(
    clients: Any,
) -> None:
    client = clients[0]
    with pytest.raises(openai.BadRequestError) as unknown:
        client.responses.create(model="gpt-4.1-mini", previous_response_id="resp_x", input="hi")
    assert unknown.value.body == {
        "message": "Previous response with id 'resp_x' not found.",
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }
    unstored = client.responses.create(model="gpt-4.1-mini", input="hi there", store=False)
    with pytest.raises(openai.BadRequestError, match="not found"):
        client.responses.create(
            model="gpt-4.1-mini", previous_response_id=unstored.id, input="again"
        )


def test_the_store_is_bounded_oldest_first() -> None:
    held = HeldConversations(limit=2)
    for key in ("a", "b", "c"):
        held.put(key, [key])
    assert (held.get("a"), held.get("b"), held.get("c"), len(held)) == (None, ["b"], ["c"], 2)


def _tool_runner(client: anthropic.Anthropic, calls: list[str]) -> Any:
    @beta_tool
    def read_file(path: str) -> str:
        """Read a file of the workspace."""
        calls.append(path)
        return f"The code is {CODE}."

    return client.beta.messages.tool_runner(
        model="claude-sonnet-4-5",
        max_tokens=300,
        tools=[read_file],
        messages=[{"role": "user", "content": "What is the release code?"}],
    )


def test_the_anthropic_tool_runner_threads_are_held(sim: SimulatorServer, clients: Any) -> None:
    start = len(sim.requests)
    calls: list[str] = []
    final = _tool_runner(clients[1], calls).until_done()
    assert calls == ["notes.txt"]
    assert [b.text for b in final.content if b.type == "text"] == [f"The release code is {CODE}."]
    create, follow = (r.body for r in sim.requests[start:])
    assert create["thread"] == {"type": "create"}
    # The default the simulator refused before: only the new turn, no tools.
    assert follow["thread"]["type"] == "continue" and "tools" not in follow
    assert [m["content"][0]["type"] for m in follow["messages"]] == ["tool_result"]


def test_an_unknown_thread_is_thread_not_found(clients: Any) -> None:
    client = clients[1]
    with pytest.raises(anthropic.NotFoundError) as lost:
        client.beta.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=50,
            messages=[{"role": "user", "content": "hi"}],
            thread={"type": "continue", "previous_message_id": "msg_gone"},
        )
    body = lost.value.body
    assert isinstance(body, dict)
    assert body["error"]["details"] == {"error_code": "thread_not_found"}


def test_a_mutated_answer_is_held_under_its_own_id_for_the_next_request() -> None:
    """The mutant responder renders answers without a server: its held state keeps
    a mutated answer, so the request naming that answer's id is continued."""
    url = "https://api.openai.com/v1/responses"
    held = HeldConversations()
    asked = Reply(tool_calls=(ScriptToolCall(name="read_file", arguments={"path": "x"}),))
    first = json.loads(
        render_reply(url, json.dumps({"model": "m", "input": "hi"}), asked, held).body
    )
    call_id = first["output"][0]["call_id"]
    follow = {
        "model": "m",
        "previous_response_id": first["id"],
        "input": [{"type": "function_call_output", "call_id": call_id, "output": "ok"}],
    }
    answer = render_reply(url, json.dumps(follow), Reply(text="mutated"), held)
    assert answer.status == 200, answer.body
    assert json.loads(answer.body)["previous_response_id"] == first["id"]
    stateless = render_reply(url, json.dumps(follow), Reply(text="mutated"))
    assert stateless.status == 400  # nothing held: the real API's unknown id


def test_a_thread_continue_joins_the_conversation_of_the_message_it_names(
    sim: SimulatorServer, clients: Any
) -> None:
    """A continue that carries no tool result (a new user turn) repeats neither the
    first message nor the system text: only the message id joins it to its thread."""
    client = clients[1]
    start = len(sim.requests)
    first = client.beta.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=50,
        system="You are terse.",
        messages=[{"role": "user", "content": "hello"}],
        thread={"type": "create"},
    )
    client.beta.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=50,
        messages=[{"role": "user", "content": "and again"}],
        thread={"type": "continue", "previous_message_id": first.id},
    )
    calls = [
        Call(index, read_messages_request(r.body), read_messages_response(200, {"id": i}, b""))
        for index, (r, i) in enumerate(zip(sim.requests[start:], [first.id, "msg_2"], strict=True))
    ]
    steps = [item for item in place_calls(calls).items if isinstance(item, Step)]
    assert [step.conversation for step in steps] == [0, 0]


# The agents the pytester projects run: a raw Responses loop and the Anthropic tool runner.
AGENTS = f'''
import json
import pytest
from anthropic import beta_tool

TOOLS = {TOOLS!r}


def read(workspace, path):
    target = workspace / path
    return target.read_text() if target.exists() else "no file"


def responses_agent(client, workspace):
    response = client.responses.create(
        model="gpt-4.1-mini", input="What is the release code?", tools=TOOLS
    )
    calls = []
    for _ in range(4):
        asks = [item for item in response.output if item.type == "function_call"]
        if not asks:
            return response.output_text, calls
        outputs = []
        for ask in asks:
            path = json.loads(ask.arguments)["path"]
            calls.append(path)
            outputs.append(
                {{"type": "function_call_output", "call_id": ask.call_id,
                  "output": read(workspace, path)}}
            )
        response = client.responses.create(
            model="gpt-4.1-mini", previous_response_id=response.id, input=outputs, tools=TOOLS
        )
    return "", calls


def runner_agent(client, workspace):
    calls = []

    @beta_tool
    def read_file(path: str) -> str:
        """Read a file of the workspace."""
        calls.append(path)
        return read(workspace, path)

    final = client.beta.messages.tool_runner(
        model="claude-sonnet-4-5", max_tokens=300, tools=[read_file],
        messages=[{{"role": "user", "content": "What is the release code?"}}],
    ).until_done()
    return "".join(b.text for b in final.content if b.type == "text"), calls


@pytest.mark.eval("responses-held")
def test_responses(llm_cassette, tmp_path):
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    answer, calls = responses_agent(llm_cassette.openai(), tmp_path)
    assert calls == ["notes.txt"]
    assert "{CODE}" in answer


@pytest.mark.eval("tool-runner")
def test_tool_runner(llm_cassette, tmp_path):
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    answer, calls = runner_agent(llm_cassette.anthropic(), tmp_path)
    assert calls == ["notes.txt"]
    assert "{CODE}" in answer
'''


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--assert=plain", *args)


@pytest.mark.deep
def test_held_runs_record_replay_offline_trace_as_one_conversation_and_kill_mutants(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(test_agent=AGENTS)
    recorded = _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url)
    recorded.assert_outcomes(passed=2)
    hits = sim.hits
    _run(pytester, "--harness-report", "replay.json").assert_outcomes(passed=2)
    assert sim.hits == hits  # replayed offline
    rows = {row.scenario: row for row in load_report(pytester.path / "replay.json").rows}
    for name in ("responses-held", "tool-runner"):
        row = rows[name]
        # One conversation: the tool result of the second request answers the first's call.
        assert (row.llm_calls, row.tool_calls, row.steps) == (2, 1, 2), name
    _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    by_eval: dict[str, list[Any]] = {}
    for result in load_report(pytester.path / "m.json").mutants:
        by_eval.setdefault(result.scenario, []).append(result)
    for name in ("responses-held", "tool-runner"):
        results = by_eval[name]
        control = next(r for r in results if r.mutant == "original")
        assert control.outcome.value == "pass", (name, control.message)
        # Request mutants are scored apart: only a check on what was sent kills them.
        mutants = [
            r for r in results if r.mutant != "original" and not is_request_operator(r.operator)
        ]
        killed = [r for r in mutants if r.outcome.value == "killed"]
        rate = len(killed) / len(mutants)
        print(f"{name}: {len(killed)}/{len(mutants)} mutants killed ({rate:.0%})")
        assert rate >= 0.8, [(r.mutant, r.outcome.value, r.message) for r in mutants]


_TURNS = st.lists(
    st.tuples(st.text("abc XYZ09", min_size=1, max_size=12), st.integers(0, 2)),
    min_size=1,
    max_size=4,
)


@given(turns=_TURNS)
@settings(max_examples=30, deadline=None)
def test_a_chain_of_previous_response_ids_reads_as_its_whole_history(
    turns: list[tuple[str, int]],
) -> None:
    """Each turn (a user text, then replies asking for n tool calls) sent as a chain of
    ``previous_response_id`` requests is the conversation a client sending the whole
    history would have sent: the same tool results, user text and assistant turns."""
    held = HeldConversations()
    history: list[dict[str, Any]] = []
    previous: str | None = None
    for number, (text, asks) in enumerate(turns):
        new: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": text}]
        body: dict[str, Any] = {"model": "m", "input": new}
        if previous is not None:
            body["previous_response_id"] = previous
        chained = _responses.parse(held.resume(_responses, body))
        whole = _responses.parse({"model": "m", "input": [*history, *new]})
        for field in ("tool_results", "trailing_tool_results", "last_user_text"):
            assert getattr(chained, field) == getattr(whole, field)
        assert chained.assistant_turns == whole.assistant_turns
        calls = tuple(
            ScriptToolCall(name="f", arguments={"n": i}, id=f"c{number}x{i}") for i in range(asks)
        )
        reply = Reply(text="" if asks else f"answer {number}", tool_calls=calls)
        seed = f"seed{number}"
        held.keep(_responses, held.resume(_responses, body), reply, chained, seed)
        kept = held.get(f"resp_sim{seed}")
        assert kept is not None
        history = [*kept]
        # The next turn answers every call first, as the API requires.
        outputs = [
            {"type": "function_call_output", "call_id": c.id, "output": f"r{c.id}"} for c in calls
        ]
        history.extend(outputs)
        previous = f"resp_sim{seed}"
        if outputs:  # answered in a request of its own, continuing the same chain
            follow = {"model": "m", "input": outputs, "previous_response_id": previous}
            expanded = held.resume(_responses, follow)
            assert _responses.parse(expanded).trailing_tool_results == tuple(
                o["output"] for o in outputs
            )
            done = Reply(text=f"after tools {number}")
            held.keep(_responses, expanded, done, _responses.parse(expanded), f"seed{number}t")
            history = [*held.get(f"resp_simseed{number}t")]
            previous = f"resp_simseed{number}t"
