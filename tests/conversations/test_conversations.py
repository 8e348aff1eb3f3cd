"""The conversation room on its own: the user block's parsing, branch matching, the
state file, the speakers and the turn loop's trace (no pytest plugin, no network)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from harness.conversations import (
    AgentSaid,
    FunctionTarget,
    GraphNode,
    ModelUser,
    ScriptedUser,
    UserSpec,
    load_conversation_target,
    next_node,
    run_conversation,
    said_matches,
    set_path,
    speaker_for,
    state_failures,
)
from harness.core import ConfigurationError, LLMResponse, Role, ToolCall
from harness.core.roles import JUDGE_OPENING, USER_OPENING, role_of_system
from harness.evals.cases import load_case_file
from harness.evals.judge import JUDGE_INSTRUCTIONS
from harness.providers import ScriptedProvider
from harness.tracing import MemoryTraceRecorder, Tracer

TEXT = st.text(max_size=40)


# -- matching what the agent said ------------------------------------------------


@given(before=TEXT, word=TEXT.filter(bool), after=TEXT)
def test_contains_finds_any_substring_in_any_case(before: str, word: str, after: str) -> None:
    text = before + word + after
    assert said_matches(AgentSaid(contains=(word,)), text)
    assert said_matches(AgentSaid(contains=(word.casefold(),)), text.casefold())
    assert said_matches(AgentSaid(any=("\x00never\x00", word)), text)
    assert not said_matches(AgentSaid(not_contains=(word,)), text)


@given(text=TEXT, word=TEXT)
def test_not_contains_is_the_negation_of_contains(text: str, word: str) -> None:
    found = said_matches(AgentSaid(contains=(word,)), text)
    assert said_matches(AgentSaid(not_contains=(word,)), text) is not found


@given(reply=TEXT, word=TEXT.filter(bool))
@example(reply="\n", word="0")
def test_the_first_branch_that_holds_wins(reply: str, word: str) -> None:
    node = GraphNode.model_validate(
        {"say": "hi", "then": [{"when": {"contains": word}, "goto": "a"}, {"goto": "b"}]}
    )
    expected = "a" if word.casefold() in reply.casefold() else "b"
    assert next_node(node, reply) == expected
    only = GraphNode.model_validate({"say": "hi", "then": [{"when": {"regex": "^$"}, "goto": "a"}]})
    # re.search's ``$`` also matches before a final newline: a lone "\n" holds too.
    assert next_node(only, reply) == ("a" if reply in ("", "\n") else None)


def test_a_condition_given_as_one_string_is_a_list() -> None:
    assert AgentSaid.model_validate({"contains": "order id"}).contains == ("order id",)


# -- roles -----------------------------------------------------------------------


@given(rest=TEXT)
def test_the_role_is_read_from_the_system_text(rest: str) -> None:
    assert role_of_system(USER_OPENING + rest) == "user"
    assert role_of_system(JUDGE_OPENING + rest) == "judge"
    if not (rest.lstrip().startswith(USER_OPENING) or rest.lstrip().startswith(JUDGE_OPENING)):
        assert role_of_system(rest) == "agent"
    assert role_of_system(None) == "agent"


def test_the_judge_request_is_tagged_judge() -> None:
    assert role_of_system(JUDGE_INSTRUCTIONS) == "judge"


# -- the state file --------------------------------------------------------------

KEYS = st.text("abcxyz", min_size=1, max_size=4)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


@given(
    document=st.dictionaries(KEYS, JSON, max_size=4), path=st.lists(KEYS, min_size=1, max_size=3)
)
def test_set_path_writes_the_value_and_keeps_the_rest(
    document: dict[str, Any], path: list[str]
) -> None:
    try:
        changed = set_path(document, ".".join(path), "NEW")
    except ConfigurationError:
        # Only a path through a plain value is refused: walking the path's existing
        # objects must end at one (a missing key or a null is made an object).
        value: Any = document
        for part in path[:-1]:
            if not isinstance(value, dict) or part not in value:
                break
            value = value[part]
        assert not isinstance(value, dict | None)
        return
    found: Any = changed
    for part in path:
        found = found[part]
    assert found == "NEW"
    assert {k: v for k, v in changed.items() if k != path[0]} == {
        k: v for k, v in document.items() if k != path[0]
    }


def test_set_path_indexes_lists_and_refuses_a_missing_item() -> None:
    assert set_path({"orders": [{"s": 1}]}, "orders.0.s", 2) == {"orders": [{"s": 2}]}
    with pytest.raises(ConfigurationError, match="no item '3' in a list"):
        set_path({"orders": []}, "orders.3.s", 2)


def test_state_failures_name_each_difference(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"a": {"b": 1, "c": 2}}))
    assert state_failures(state, {"a": {"b": 1, "c": 2}}) == []
    assert state_failures(state, {"a": {"b": 1}}, subset=True) == []
    assert state_failures(state, {"a": {"b": 1}}) == ["state: a.c = 2 is not expected"]
    assert state_failures(state, {"a": {"b": 3}}, subset=True) == ["state: a.b = 1, expected 3"]
    assert state_failures(tmp_path / "none.json", {}) == ["state: none.json does not exist"]


# -- the user block in a case file ----------------------------------------------


def _load(tmp_path: Path, user: str, checks: str = "said_contains: [SENTINEL-A-1]") -> Any:
    path = tmp_path / "talk.yaml"
    path.write_text(
        "version: 1\ncases:\n  - name: talk\n    workspace: w\n    user:\n"
        + "".join(f"      {line}\n" for line in user.strip().splitlines())
        + f"    checks:\n      {checks}\n",
        "utf-8",
    )
    return load_case_file(path, root=tmp_path)


@pytest.mark.parametrize(
    ("user", "checks", "expected"),
    [
        pytest.param(
            "persna: Dana\ngoal: refund",
            "said_contains: [SENTINEL-A-1]",
            "talk.yaml: case 'talk': user.persna: unknown field; check its spelling",
            id="misspelt-key",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\nstop: {max_turn: 3}",
            "said_contains: [SENTINEL-A-1]",
            "talk.yaml: case 'talk': user.stop.max_turn: unknown field",
            id="misspelt-nested-key",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\ngraph: {start: a, nodes: {a: {say: hi, then: "
            "[{goto: b}]}}}",
            "said_contains: [SENTINEL-A-1]",
            "user.graph: node 'a' goes to 'b', which is not a node",
            id="graph-goto",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund SENTINEL-A-1",
            "said_contains: [SENTINEL-A-1]",
            "the user block contains the sentinel(s) ['SENTINEL-A-1']",
            id="sentinel-in-goal",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\nstop: {on_goal: true}",
            "said_contains: [SENTINEL-A-1]",
            "user.stop.on_goal needs the goal: a checks.state block",
            id="on-goal-without-state",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\ntools: [{name: reboot, description: Reboot.}]",
            "said_contains: [SENTINEL-A-1]",
            "user tools change the state file: name it with state: <path>",
            id="tools-without-state",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\nturns: [{say: hi, tool: {name: reboot}}]",
            "said_contains: [SENTINEL-A-1]",
            "scripted turns run user tools that tools: does not list: ['reboot']",
            id="unknown-user-tool",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund",
            "said_contains: SENTINEL-A-1",
            "checks.said_contains: expected a list of strings",
            id="not-a-list",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\nstate: ../../outside.json",
            "said_contains: [SENTINEL-A-1]",
            "must be a path inside the workspace",
            id="state-leaves-the-workspace",
        ),
        pytest.param(
            "persona: Dana\ngoal: refund\nstate: /tmp/outside.json",
            "said_contains: [SENTINEL-A-1]",
            "must be a path inside the workspace",
            id="state-absolute",
        ),
    ],
)
def test_a_bad_user_block_is_one_clear_line(
    tmp_path: Path, user: str, checks: str, expected: str
) -> None:
    with pytest.raises(ConfigurationError) as caught:
        _load(tmp_path, user, checks)
    assert expected in str(caught.value)
    assert "\n" not in str(caught.value)


def test_conversation_checks_need_a_user_and_a_prompt_excludes_one(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(
        "version: 1\ncases:\n  - name: one\n    workspace: w\n    prompt: go\n"
        "    checks:\n      said_contains: [SENTINEL-A-1]\n"
    )
    with pytest.raises(ConfigurationError, match="said_contains check\\(s\\) a conversation"):
        load_case_file(path)
    path.write_text(
        "version: 1\ncases:\n  - name: one\n    workspace: w\n    prompt: go\n"
        "    user: {persona: p, goal: g}\n    checks:\n      answer_contains: [SENTINEL-A-1]\n"
    )
    with pytest.raises(ConfigurationError, match=r"give a prompt .* or a user block"):
        load_case_file(path)


def test_a_valid_user_block_loads(tmp_path: Path) -> None:
    (case,) = _load(tmp_path, "persona: Dana\ngoal: refund\nturns: [hi, 'bye ###STOP###']")
    assert case.user.scripted and case.task == "refund"
    assert [step.say for step in case.user.turns] == ["hi", "bye ###STOP###"]


# -- speakers and the turn loop ---------------------------------------------------


def _spec(**extra: Any) -> UserSpec:
    return UserSpec.model_validate({"persona": "Dana", "goal": "a refund", **extra})


def _tracer(mode: str = "replay") -> tuple[Tracer, MemoryTraceRecorder]:
    recorder = MemoryTraceRecorder()
    return Tracer(recorder, mode=mode), recorder  # type: ignore[arg-type]


def test_a_scripted_conversation_is_one_tree_with_a_span_per_turn(tmp_path: Path) -> None:
    spec = _spec(turns=["Hi", "W-1001", "Thanks ###STOP###"], state="state.json")
    replies = iter(["Your order id?", "Refunded."])
    seen: list[list[dict[str, str]]] = []

    def agent(history: list[dict[str, str]]) -> str:
        seen.append(history)
        return next(replies)

    tracer, recorder = _tracer()
    result = run_conversation(
        spec, speaker_for(spec, None), FunctionTarget(agent), tracer=tracer, workdir=tmp_path
    )
    assert result.stop_reason == "user_stop" and result.turns == 3
    assert result.said() == ("Your order id?", "Refunded.")
    assert seen[-1] == [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Your order id?"},
        {"role": "user", "content": "W-1001"},
    ]
    root = recorder.last.root
    assert root.kind == "agent.run"
    assert root.attributes["conversation.turns"] == 3
    assert root.attributes["conversation.stop_reason"] == "user_stop"
    assert [(s.kind, s.attributes["conversation.turn"]) for s in root.children] == [
        ("user.turn", 1), ("agent.turn", 1), ("user.turn", 2), ("agent.turn", 2), ("user.turn", 3),
    ]  # fmt: skip
    assert [s.attributes["message.content"] for s in root.children[:2]] == ["Hi", "Your order id?"]


def test_metadata_mode_keeps_no_message_text(tmp_path: Path) -> None:
    spec = _spec(turns=["Hi SENTINEL-SECRET-1"])
    tracer, recorder = _tracer("metadata")
    run_conversation(
        spec,
        speaker_for(spec, None),
        FunctionTarget(lambda h: "ok"),
        tracer=tracer,
        workdir=tmp_path,
    )
    text = recorder.last.to_json()
    assert "SENTINEL-SECRET-1" not in text and "message.content_chars" in text


@pytest.mark.parametrize(
    ("turns", "max_turns", "stop"),
    [
        pytest.param(["a", "b", "c"], 2, "max_turns", id="max-turns"),
        pytest.param(["a"], 5, "script_end", id="script-end"),
        pytest.param(["a", ""], 5, "user_silent", id="silent"),
        pytest.param(["###STOP###"], 5, "user_stop", id="stop-at-once"),
    ],
)
def test_each_stop_condition(tmp_path: Path, turns: list[str], max_turns: int, stop: str) -> None:
    spec = _spec(turns=turns, stop={"max_turns": max_turns})
    tracer, _ = _tracer()
    result = run_conversation(
        spec, ScriptedUser(spec.turns or ()), FunctionTarget(lambda h: "ok"),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    assert result.stop_reason == stop


def test_the_goal_ends_the_conversation_when_asked(tmp_path: Path) -> None:
    spec = _spec(turns=["a", "b", "c"], stop={"on_goal": True})
    tracer, _ = _tracer()
    answers = iter([False, True])
    result = run_conversation(
        spec, speaker_for(spec, None), FunctionTarget(lambda h: "ok"),
        tracer=tracer, workdir=tmp_path, goal_reached=lambda: next(answers),
    )  # fmt: skip
    assert (result.stop_reason, result.turns) == ("goal_reached", 2)


def test_a_graph_stops_when_no_branch_holds(tmp_path: Path) -> None:
    spec = _spec(
        graph={
            "start": "a",
            "nodes": {"a": {"say": "hi", "then": [{"when": {"contains": "id"}, "goto": "a"}]}},
        }
    )
    tracer, _ = _tracer()
    result = run_conversation(
        spec, speaker_for(spec, None), FunctionTarget(lambda h: "hello"),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    assert (result.stop_reason, result.turns) == ("no_branch", 1)


def test_the_model_user_runs_its_tool_and_sees_roles_turned_round(tmp_path: Path) -> None:
    (tmp_path / "state.json").write_text('{"router": {"status": "off"}}')
    spec = _spec(
        state="state.json",
        tools=[{"name": "reboot", "description": "Reboot.", "sets": {"router.status": "on"}}],
    )
    provider = ScriptedProvider()
    provider.add("My internet is down.")
    provider.add(LLMResponse(tool_calls=(ToolCall(name="reboot"),)))
    provider.add("Done. ###STOP###")
    tracer, recorder = _tracer()
    result = run_conversation(
        spec, ModelUser(spec, provider), FunctionTarget(lambda h: "Please reboot."),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    provider.assert_complete()
    assert result.stop_reason == "user_stop"
    assert json.loads((tmp_path / "state.json").read_text()) == {"router": {"status": "on"}}
    second = provider.requests[1]
    assert second.messages[0].role is Role.SYSTEM
    assert role_of_system(second.messages[0].content) == "user"
    assert [m.role for m in second.messages[1:]] == [Role.USER, Role.ASSISTANT, Role.USER]
    assert second.messages[-1].content == "Please reboot."
    assert [t.name for t in second.tools] == ["reboot"]
    tool = recorder.last.one(kind="user.tool", name="reboot")
    assert tool.attributes["result"] == "done"
    assert recorder.last.parent(tool).kind == "user.turn"  # type: ignore[union-attr]


def test_an_unknown_user_tool_is_an_error_the_user_sees(tmp_path: Path) -> None:
    spec = _spec()
    provider = ScriptedProvider()
    provider.add(LLMResponse(tool_calls=(ToolCall(name="fly"),)))
    provider.add("ok ###STOP###")
    tracer, recorder = _tracer()
    run_conversation(
        spec, ModelUser(spec, provider), FunctionTarget(lambda h: "x"),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    shown = provider.requests[1].messages[-1]
    assert shown.role is Role.TOOL and "no tool 'fly'" in shown.content
    assert not recorder.last.one(kind="user.tool").ok


# -- hostile inputs -------------------------------------------------------------------

FAKE_KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8"


def test_a_target_that_raises_fails_the_row_on_one_line_with_no_secret(tmp_path: Path) -> None:
    def agent(history: list[dict[str, str]]) -> str:
        if len(history) > 1:
            raise RuntimeError(f"upstream said 401 for key {FAKE_KEY}\nretry later")
        return "Your order id?"

    spec = _spec(turns=["Hi", "W-1001", "Thanks ###STOP###"])
    tracer, recorder = _tracer()
    with pytest.raises(ConfigurationError) as caught:
        run_conversation(
            spec, speaker_for(spec, None), FunctionTarget(agent, "shop:answer"),
            tracer=tracer, workdir=tmp_path,
        )  # fmt: skip
    message = str(caught.value)
    assert message.startswith("conversation target shop:answer raised RuntimeError at user turn 2")
    assert "\n" not in message and FAKE_KEY not in message
    root = recorder.last.root
    assert root.status == "error"
    assert root.attributes["conversation.stop_reason"] == "error"
    assert FAKE_KEY not in recorder.last.to_json()


def test_a_target_module_that_fails_on_import_is_one_clear_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "broken_target_module_for_conversations"
    (tmp_path / f"{name}.py").write_text(f"raise RuntimeError('no config for {FAKE_KEY}')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    with pytest.raises(ConfigurationError) as caught:
        load_conversation_target(f"{name}:answer")
    message = str(caught.value)
    assert f"importing {name} raised RuntimeError" in message
    assert "\n" not in message and FAKE_KEY not in message


def test_a_model_user_that_never_stops_is_capped(tmp_path: Path) -> None:
    # It never says the stop token and asks for a tool every time: the tool rounds
    # of a turn and the turns of the conversation both end.
    spec = _spec(
        state="state.json",
        stop={"max_turns": 3},
        tools=[{"name": "reboot", "description": "Reboot.", "sets": {"n": 1}}],
    )
    provider = ScriptedProvider()
    for _ in range(3):
        provider.add(LLMResponse(text="again", tool_calls=(ToolCall(name="reboot"),)))
        provider.add(LLMResponse(tool_calls=(ToolCall(name="reboot"),)))
        provider.add(LLMResponse(tool_calls=(ToolCall(name="reboot"),)))
        provider.add(LLMResponse(text="more", tool_calls=(ToolCall(name="reboot"),)))
    tracer, _ = _tracer()
    result = run_conversation(
        spec, ModelUser(spec, provider), FunctionTarget(lambda h: "ok"),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    provider.assert_complete()
    assert (result.stop_reason, result.turns) == ("max_turns", 3)
    assert len(result.user_tool_calls) == 9  # three rounds a turn, then it must speak


def test_a_user_tool_whose_state_cannot_be_written_is_an_error_the_user_sees(
    tmp_path: Path,
) -> None:
    spec = _spec(
        state="gone/state.json",  # its folder does not exist
        tools=[{"name": "reboot", "description": "Reboot.", "sets": {"router": "on"}}],
    )
    provider = ScriptedProvider()
    provider.add(LLMResponse(tool_calls=(ToolCall(name="reboot"),)))
    provider.add("It did not work. ###STOP###")
    tracer, recorder = _tracer()
    result = run_conversation(
        spec, ModelUser(spec, provider), FunctionTarget(lambda h: "x"),
        tracer=tracer, workdir=tmp_path,
    )  # fmt: skip
    assert result.stop_reason == "user_stop"
    shown = provider.requests[1].messages[-1]
    assert shown.role is Role.TOOL
    assert shown.content.startswith("error: state file state.json: cannot write it")
    assert not recorder.last.one(kind="user.tool").ok
