"""Checks on what was sent (issue 43 item 5): one request view over five wires, and the checks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core import LLMRequest, Message, ToolCall, ToolDefinition
from harness.evals.request_mutants import RequestChange
from harness.providers import RequestLoggingProvider, ScriptedProvider
from harness.testing import (
    HttpExchange,
    RequestAssertionError,
    SentRequest,
    assert_requests,
    sent_requests,
    system_sha256,
)
from harness.traffic.sent import sent_from_body

SCHEMA = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
SYSTEM = "You are careful.\nNever guess."

# One conversation (system, user, a tool call, its result) with the same settings, per wire.
BODIES: dict[str, tuple[str, dict[str, Any]]] = {
    "openai": (
        "https://api.openai.com/v1/chat/completions",
        {
            "model": "gpt-5-mini",
            "reasoning_effort": "low",
            "temperature": 0.2,
            "messages": [
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": "read a"},
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {"name": "read", "arguments": '{"path": "a"}'},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "c1", "content": "A"},
            ],
            "tools": [{"type": "function", "function": {"name": "read", "parameters": SCHEMA}}],
        },
    ),
    "openai-responses": (
        "https://api.openai.com/v1/responses",
        {
            "model": "gpt-5-mini",
            "instructions": SYSTEM,
            "reasoning": {"effort": "low"},
            "temperature": 0.2,
            "input": [
                {"role": "user", "content": "read a"},
                {"type": "function_call", "call_id": "c1", "name": "read", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "A"},
            ],
            "tools": [{"type": "function", "name": "read", "parameters": SCHEMA}],
        },
    ),
    "anthropic": (
        "https://api.anthropic.com/v1/messages",
        {
            "model": "gpt-5-mini",
            "system": [{"type": "text", "text": SYSTEM, "cache_control": {"type": "ephemeral"}}],
            "output_config": {"effort": "low"},
            "temperature": 0.2,
            "messages": [
                {"role": "user", "content": "read a"},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "c1", "name": "read", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "c1", "content": "A"}],
                },
            ],
            "tools": [{"name": "read", "input_schema": SCHEMA}],
        },
    ),
    "gemini": (
        "https://generativelanguage.googleapis.com/v1beta/models/gpt-5-mini:generateContent",
        {
            "systemInstruction": {"parts": [{"text": SYSTEM}]},
            "generationConfig": {"temperature": 0.2, "thinkingConfig": {"thinkingLevel": "LOW"}},
            "contents": [
                {"role": "user", "parts": [{"text": "read a"}]},
                {"role": "model", "parts": [{"functionCall": {"name": "read", "args": {}}}]},
                {
                    "role": "user",
                    "parts": [{"functionResponse": {"name": "read", "response": {"out": "A"}}}],
                },
            ],
            "tools": [{"functionDeclarations": [{"name": "read", "parameters": SCHEMA}]}],
        },
    ),
    "bedrock": (
        "https://bedrock-runtime.us-east-1.amazonaws.com/model/gpt-5-mini/converse",
        {
            "system": [{"text": SYSTEM}],
            "inferenceConfig": {"temperature": 0.2},
            "additionalModelRequestFields": {"reasoning_effort": "low"},
            "messages": [
                {"role": "user", "content": [{"text": "read a"}]},
                {
                    "role": "assistant",
                    "content": [{"toolUse": {"toolUseId": "c1", "name": "read", "input": {}}}],
                },
                {
                    "role": "user",
                    "content": [{"toolResult": {"toolUseId": "c1", "content": [{"text": "A"}]}}],
                },
            ],
            "toolConfig": {
                "tools": [{"toolSpec": {"name": "read", "inputSchema": {"json": SCHEMA}}}]
            },
        },
    ),
}


@pytest.mark.parametrize("wire", sorted(BODIES))
def test_every_wire_reads_into_one_view(wire: str) -> None:
    url, body = BODIES[wire]
    sent = sent_from_body(wire, body, url)
    assert (sent.wire, sent.model, sent.temperature, sent.effort) == (
        wire,
        "gpt-5-mini",
        0.2,
        "low",
    )
    assert sent.system == SYSTEM and sent.system_sha256 == system_sha256(SYSTEM)
    assert sent.tool_names == ("read",) and sent.tools[0].parameters == SCHEMA
    assert sent.messages[0].role == "user" and sent.messages[0].text == "read a"
    assert any(m.role == "assistant" and "call read" in m.text for m in sent.messages)


def test_the_tools_digest_is_one_across_wires() -> None:
    digests = {sent_from_body(w, b, u).tools_sha256 for w, (u, b) in BODIES.items()}
    assert len(digests) == 1


@pytest.mark.parametrize(
    ("thinking", "effort"),
    [
        ({"type": "enabled", "budget_tokens": 2048}, "budget:2048"),
        ({"type": "adaptive"}, "adaptive"),
        ({"type": "disabled"}, "disabled"),
    ],
    ids=["budget", "adaptive", "disabled"],
)
def test_anthropic_thinking_is_an_effort(thinking: dict[str, Any], effort: str) -> None:
    body = {"model": "m", "messages": [], "thinking": thinking}
    assert sent_from_body("anthropic", body).effort == effort


def test_gemini_thinking_budget_is_an_effort() -> None:
    url, body = BODIES["gemini"]
    budget = {**body, "generationConfig": {"thinkingConfig": {"thinkingBudget": 0}}}
    assert sent_from_body("gemini", budget, url).effort == "budget:0"


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(content=st.text(max_size=40), extra=st.dictionaries(st.sampled_from(["name", "x"]), _json))
def test_message_keys_ignore_key_order_and_cache_markers(
    content: str, extra: dict[str, Any]
) -> None:
    item = {"role": "user", "content": [{"type": "text", "text": content}], **extra}
    marked = {
        **dict(reversed(list(item.items()))),
        "content": [{"type": "text", "text": content, "cache_control": {"type": "ephemeral"}}],
    }
    plain = sent_from_body("anthropic", {"model": "m", "messages": [item]})
    moved = sent_from_body("anthropic", {"model": "m", "messages": [marked]})
    assert plain.messages == moved.messages


@given(first=st.text(min_size=1, max_size=20), second=st.text(min_size=1, max_size=20))
def test_message_keys_tell_other_content_apart(first: str, second: str) -> None:
    one = sent_from_body("openai", {"messages": [{"role": "user", "content": first}]})
    two = sent_from_body("openai", {"messages": [{"role": "user", "content": second}]})
    assert (one.messages[0].key == two.messages[0].key) == (first == second)


# -- prefix and history --------------------------------------------------------------


def _chat(*turns: str, system: str = SYSTEM) -> SentRequest:
    messages = [{"role": "system", "content": system}] + [
        {"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)
    ]
    return sent_from_body("openai", {"model": "m", "messages": messages})


def _swapped(turns: list[str], *more: str) -> SentRequest:
    """``_chat(*turns, *more)`` with its first two turns swapped, as items (roles kept)."""
    body = {"model": "m", "messages": _chat_messages(*turns, *more)}
    body["messages"][1], body["messages"][2] = body["messages"][2], body["messages"][1]
    return sent_from_body("openai", body)


def _chat_messages(*turns: str, system: str = SYSTEM) -> list[dict[str, Any]]:
    return [{"role": "system", "content": system}] + [
        {"role": "user" if n % 2 == 0 else "assistant", "content": t} for n, t in enumerate(turns)
    ]


def _run(*requests: SentRequest) -> list[SentRequest]:
    from dataclasses import replace

    return [replace(r, index=i) for i, r in enumerate(requests)]


_turns = st.lists(st.text(min_size=1, max_size=10), min_size=1, max_size=6)


@given(turns=_turns, grow=st.integers(min_value=1, max_value=4))
def test_a_growing_conversation_keeps_its_prefix_and_history(turns: list[str], grow: int) -> None:
    requests = [_chat(*turns[: n + 1]) for n in range(len(turns))]
    # Every request adds the model's answer and the next user turn, as an agent loop does.
    run = _run(*(_chat(*[*turns, *["more"] * (2 * k)]) for k in range(grow)))
    assert_requests(run).stable_prefix().complete_history()
    assert_requests(_run(*requests)).stable_prefix()


@given(turns=st.lists(st.text(min_size=1, max_size=10), min_size=2, max_size=6, unique=True))
def test_a_reordered_prefix_is_caught(turns: list[str]) -> None:
    before = _chat(*turns)
    with pytest.raises(RequestAssertionError, match="message 0 differs"):
        assert_requests(_run(before, _swapped(turns, "answer", "next"))).stable_prefix()


@given(turns=st.lists(st.text(min_size=1, max_size=10), min_size=3, max_size=6, unique=True))
def test_a_dropped_turn_is_caught(turns: list[str]) -> None:
    before = _chat(*turns)
    after = _chat(turns[0], *turns[2:], "answer", "next")
    with pytest.raises(RequestAssertionError, match=r"message 1 .* was dropped"):
        assert_requests(_run(before, after)).complete_history()


def test_history_needs_the_models_answer() -> None:
    run = _run(_chat("hi"), _chat("hi", "also user?", system=SYSTEM))
    assert_requests(run).complete_history()  # "also user?" sits in the assistant slot
    missing = _run(
        _chat("hi"),
        sent_from_body(
            "openai",
            {
                "messages": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": "hi"},
                    {"role": "user", "content": "again"},
                ]
            },
        ),
    )
    with pytest.raises(RequestAssertionError, match="answer to request 0 is missing"):
        assert_requests(missing).complete_history()


def test_a_changed_system_line_breaks_the_prefix_and_the_digest() -> None:
    run = _run(_chat("hi"), _chat("hi", "ok", "go", system="You are careful."))
    with pytest.raises(RequestAssertionError, match="system text changed"):
        assert_requests(run).stable_prefix()
    with pytest.raises(RequestAssertionError) as caught:
        assert_requests(run).system_sha256(system_sha256(SYSTEM))
    message = str(caught.value)
    assert "request 1 of 2 (openai)" in message and "pin the new one" in message
    assert system_sha256("You are careful.") in message


def test_a_server_held_history_is_not_compared() -> None:
    first = sent_from_body("openai-responses", {"model": "m", "input": "hi"})
    second = sent_from_body(
        "openai-responses", {"model": "m", "input": "next", "previous_response_id": "r1"}
    )
    assert_requests(_run(first, second)).stable_prefix().complete_history()


# -- settings and selection ----------------------------------------------------------


def _requests() -> list[SentRequest]:
    url, body = BODIES["openai"]
    return _run(
        sent_from_body("openai", body, url), sent_from_body("openai", {**body, "model": "x"}, url)
    )


def test_each_setting_names_the_request_the_values_and_the_fix() -> None:
    with pytest.raises(RequestAssertionError) as caught:
        assert_requests(_requests()).model("gpt-5-mini")
    assert str(caught.value).startswith(
        "request 1 of 2 (openai): model: expected 'gpt-5-mini', sent 'x'"
    )
    assert "--harness-model" in str(caught.value)
    assert_requests(_requests()).at(0).model("gpt-5-mini").effort("low").temperature(0.2)
    assert_requests(_requests()).where(lambda r: r.model == "x").model("x")
    with pytest.raises(RequestAssertionError, match="effort: expected 'high', sent 'low'"):
        assert_requests(_requests()).effort("high")
    with pytest.raises(RequestAssertionError, match="no request 5: the run sent 2"):
        assert_requests(_requests()).at(5)


def test_tools_by_names_by_schema_and_by_digest() -> None:
    checks = assert_requests(_requests())
    checks.tools({"read"}).tools({"read": SCHEMA}).tools_sha256(checks.requests[0].tools_sha256)
    with pytest.raises(RequestAssertionError, match=r"missing \['write'\], unexpected \[\]"):
        checks.tools(["read", "write"])
    renamed = {**SCHEMA, "properties": {"file": {"type": "string"}}}
    with pytest.raises(RequestAssertionError, match="tool 'read' parameters"):
        checks.tools({"read": renamed})


def test_harness_requests_come_from_the_innermost_log() -> None:
    tool = ToolDefinition(name="read", description="Read a file", parameters=SCHEMA)
    scripted = ScriptedProvider(["done"], model="gpt-x")
    logging = RequestLoggingProvider(scripted)
    request = LLMRequest(messages=(Message.system(SYSTEM), Message.user("hi")), tools=(tool,))
    logging.complete(request)
    sent = sent_requests(logging)
    assert len(sent) == 1 and sent[0].system_sha256 == system_sha256(SYSTEM)
    assert sent[0].tool_names == ("read",) and sent[0].messages[0].text == "hi"
    assert sent[0].model == "gpt-x"  # the provider's, as the request names none


def test_harness_messages_show_their_tool_calls() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a"})
    request = LLMRequest(messages=(Message.user("hi"), Message.assistant("", (call,))))
    sent = sent_requests([request])[0]
    assert sent.messages[1].text == 'call read({"path": "a"})'


def test_exchanges_are_read_and_other_traffic_skipped() -> None:
    url, body = BODIES["anthropic"]
    exchanges = [
        HttpExchange("GET", "https://api.anthropic.com/v1/models", {}, b"", 200, {}, b"{}"),
        HttpExchange("POST", url, {}, json.dumps(body).encode(), 200, {}, b"{}"),
    ]
    (sent,) = sent_requests(exchanges)
    assert sent.wire == "anthropic" and sent.index == 0


def test_nothing_sent_and_unknown_sources_are_one_line_errors() -> None:
    with pytest.raises(RequestAssertionError, match="no model request was sent"):
        assert_requests([])
    with pytest.raises(RequestAssertionError, match="cannot read model requests from int"):
        sent_requests(3)


# -- one conversation, every runtime wire: the views agree -----------------------------


def _wire_bodies(request: LLMRequest) -> dict[str, tuple[str, dict[str, Any]]]:
    """``request`` as each runtime provider encodes it (their public encoders)."""
    from harness.wires.anthropic.provider import to_anthropic_messages, to_anthropic_tools
    from harness.wires.gemini.provider import to_gemini_contents, to_gemini_tools
    from harness.wires.openai.provider import to_chat_messages, to_chat_tools
    from harness.wires.openai_responses.items import to_input_items, to_response_tools

    tools = request.tools
    system, messages = to_anthropic_messages(request.messages)
    instructions, items = to_input_items(request.messages)
    gemini_system, contents = to_gemini_contents(request.messages)
    return {
        "openai": (
            "",
            {
                "model": "m",
                "messages": to_chat_messages(request.messages),
                "tools": to_chat_tools(tools),
            },
        ),
        "openai-responses": (
            "",
            {
                "model": "m",
                "instructions": instructions,
                "input": items,
                "tools": to_response_tools(tools),
            },
        ),
        "anthropic": (
            "",
            {
                "model": "m",
                "system": system,
                "messages": messages,
                "tools": to_anthropic_tools(tools),
            },
        ),
        "gemini": (
            "https://generativelanguage.googleapis.com/v1beta/models/m:generateContent",
            {
                "systemInstruction": {"parts": [{"text": gemini_system}]},
                "contents": contents,
                "tools": to_gemini_tools(tools),
            },
        ),
    }


_names = st.sampled_from(["read", "write", "grep"])
_step = st.tuples(
    st.lists(st.tuples(_names, st.text(max_size=6)), min_size=1, max_size=2),
    st.text(max_size=12),
)


def _conversation(system: str, prompt: str, steps: list[Any]) -> list[LLMRequest]:
    """The requests of an agent loop: each adds the model's calls and their results."""
    tools = tuple(
        ToolDefinition(
            name=n,
            description=n,
            parameters={"type": "object", "properties": {"path": {"type": "string"}}},
        )
        for n in ("read", "write", "grep")
    )
    messages = [Message.system(system), Message.user(prompt)]
    requests = [LLMRequest(messages=tuple(messages), tools=tools)]
    for n, (calls, output) in enumerate(steps):
        asked = tuple(
            ToolCall(id=f"c{n}_{k}", name=name, arguments={"path": arg})
            for k, (name, arg) in enumerate(calls)
        )
        messages.append(Message.assistant("", asked))
        messages += [Message.tool(c.id, output, metadata={"tool_name": c.name}) for c in asked]
        requests.append(LLMRequest(messages=tuple(messages), tools=tools))
    return requests


@pytest.mark.deep  # every wire's SDK in turn: seconds
@given(
    system=st.text(min_size=1, max_size=30).filter(str.strip),
    prompt=st.text(min_size=1, max_size=20).filter(str.strip),
    steps=st.lists(_step, min_size=1, max_size=3),
)
def test_every_wire_sees_one_conversation_alike(system: str, prompt: str, steps: list[Any]) -> None:
    requests = _conversation(system, prompt, steps)
    harness_view = sent_requests(requests)
    assert_requests(harness_view).stable_prefix().complete_history()
    for wire in ("openai", "openai-responses", "anthropic", "gemini"):
        run = []
        for n, request in enumerate(requests):
            url, body = _wire_bodies(request)[wire]
            run.append(sent_from_body(wire, body, url, index=n))
        assert {r.system for r in run} == {system}, wire
        assert {r.tools_sha256 for r in run} == {harness_view[0].tools_sha256}, wire
        assert_requests(run).stable_prefix().complete_history()
        # The last request with its first two history items swapped, as the
        # reorder_prefix mutant does: every wire tells.
        url, body = _wire_bodies(requests[-1])[wire]
        changed = RequestChange("reorder_prefix").apply_body(wire, body, 1)
        broken = [*run[:-1], sent_from_body(wire, changed, url, index=len(run) - 1)]
        with pytest.raises(RequestAssertionError, match="message 0 differs"):
            assert_requests(broken).stable_prefix()


# -- request mutants change what each wire's view shows ------------------------------


@pytest.mark.parametrize("wire", ["openai", "openai-responses", "anthropic", "gemini"])
def test_each_request_change_shows_in_the_view_of_every_mutable_wire(wire: str) -> None:
    from harness.evals.request_mutants import derive_request_mutants

    url, body = BODIES[wire]
    sent = sent_from_body(wire, body, url)
    changes = {m.operator: m.change for m in derive_request_mutants([sent, sent], ())}
    assert sorted(changes) == sorted(
        ["change_effort", "drop_system_line", "rename_param", "reorder_prefix"]
    )

    def view(change: RequestChange, index: int = 1) -> SentRequest:
        return sent_from_body(wire, change.apply_body(wire, body, index), url)

    assert view(changes["drop_system_line"]).system == "You are careful."
    assert view(changes["change_effort"]).effort == "high"
    (tool,) = view(changes["rename_param"]).tools
    assert list(tool.parameters["properties"]) == ["path_renamed"]
    assert tool.parameters["required"] == ["path_renamed"]
    reordered = view(changes["reorder_prefix"])
    assert [m.key for m in reordered.messages[:2]] == [m.key for m in sent.messages[1::-1]]
    assert view(changes["reorder_prefix"], index=0) == sent  # the first request stays
    assert sent_from_body(wire, body, url) == sent  # the recorded body is left alone


def test_a_sub_agents_requests_in_between_are_a_conversation_of_their_own() -> None:
    child = _chat("explore the repo", system="You are an explorer.")
    child_next = _chat("explore the repo", "reading", "found it", system="You are an explorer.")
    run = _run(_chat("hi"), child, child_next, _chat("hi", "calling explore", "report"))
    assert_requests(run).stable_prefix().complete_history()
    reordered = _run(_chat("hi", "ok"), child, _swapped(["hi", "ok"], "more"))
    with pytest.raises(RequestAssertionError, match=r"request 2 of 3 .* against request 0"):
        assert_requests(reordered).stable_prefix()
