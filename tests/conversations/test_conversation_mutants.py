"""Mutants of conversations: per-role streams, user operators, and the kill table.

The end-to-end test records two evals of one conversation against the simulator
(a model user, harness's runtime as the agent): one checks every turn and the
state, one only the agent's last message. Under ``--harness-mutants`` the first
kills at least 80% of the mutants; the second lets the earlier-turn mutants
live, and the table says that it reads only the last message.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.core import LLMRequest, LLMResponse, Message, ToolCall
from harness.core.roles import USER_OPENING
from harness.evals import load_report, render_mutants, summarize_mutants
from harness.evals._conversation_mutants import (
    ConversationMutant,
    conversation_mutants,
    earlier_turn,
    split_by_role,
)
from harness.evals.mutants import MutantExhaustedError, PositionalProvider
from harness.simulator import SimulatorServer
from tests.conversations.test_conversation_cases import (
    CHECKS,
    CODE,
    PRELOADED,
    SCRIPT,
    USER,
    _case,
    _project,
)

assert PRELOADED

AGENT = (
    LLMResponse(text="Your order id?"),
    LLMResponse(tool_calls=(ToolCall(name="read", arguments={"path": "a.txt"}),)),
    LLMResponse(text=f"Done, {CODE}."),
)
USERS = (
    LLMResponse(text="Hi"),
    LLMResponse(text="It is W-1001."),
    LLMResponse(text="Thanks ###STOP###"),
)
RECORDED = (USERS[0], AGENT[0], USERS[1], AGENT[1], AGENT[2], USERS[2])
ROLES: Any = ("user", "agent", "user", "agent", "agent", "user")


def test_answers_split_by_role_in_order() -> None:
    streams = dict(split_by_role(RECORDED, ROLES))
    assert streams["agent"] == AGENT and streams["user"] == USERS and streams["judge"] == ()


def test_user_mutants_name_their_turn_and_keep_the_agent_stream() -> None:
    mutants = {m.id: m for m in conversation_mutants(RECORDED, ROLES)}
    assert {"user_silent.1", "user_silent.3", "user_changes_mind.2", "user_wrong_id.1"} <= set(
        mutants
    )
    assert "user_changes_mind.3" not in mutants  # already the user's goodbye: no change
    wrong = mutants["user_wrong_id.1"]
    assert isinstance(wrong, ConversationMutant)
    assert dict(wrong.by_role)["user"][1].text == "It is W-2112."
    assert dict(wrong.by_role)["agent"] == AGENT
    assert wrong.description.endswith("[user turn 2 of 3]")
    drop = mutants["drop_call.1"]
    assert drop.description.endswith("[agent turn 2 of 2]")
    assert dict(drop.by_role)["user"] == USERS
    assert earlier_turn(mutants["refuse.1"].description)
    assert not earlier_turn(mutants["refuse.2"].description)
    assert not earlier_turn(wrong.description)  # a user turn: not what the note is about


def _request(user: bool) -> LLMRequest:
    system = USER_OPENING + " persona" if user else "You are a shop assistant."
    return LLMRequest(messages=(Message.system(system), Message.user("x")))


def test_each_role_is_served_its_own_sequence() -> None:
    (mutant,) = [m for m in conversation_mutants(RECORDED, ROLES) if m.id == "original"]
    assert isinstance(mutant, ConversationMutant)
    served = PositionalProvider("openai", "m", mutant.responses, by_role=mutant.by_role)
    assert served.complete(_request(True)).text == "Hi"
    assert served.complete(_request(False)).text == "Your order id?"
    assert served.complete(_request(False)).tool_calls  # the agent's next, not the user's
    assert served.complete(_request(True)).text == "It is W-1001."
    served.complete(_request(False))
    served.complete(_request(True))
    with pytest.raises(MutantExhaustedError, match="one more agent response"):
        served.complete(_request(False))


STRONG = (
    CHECKS
    + """      said_not_contains: ["can't help"]
      trajectory: {calls: [read refunds.txt, write state.json], args: superset}
"""
)
WEAK = f"""
    checks:
      answer_contains: [{CODE}]
"""


@pytest.mark.deep  # records, then runs about forty mutants in an inner session
def test_mutants_of_a_conversation(pytester: pytest.Pytester, sim_server: Any) -> None:
    folder = _project(pytester)
    text = "version: 1\ncases:\n" + _case("strong", USER, STRONG) + _case("weak", USER, WEAK)
    (folder / "conv.yaml").write_text(text, "utf-8")
    server: SimulatorServer = sim_server(SCRIPT)
    common = ("--harness-provider", "openai", "-p", "no:randomly")
    pytester.runpytest(
        *common, "--record-mode", "once", "--harness-base-url", server.url
    ).assert_outcomes(passed=2)
    server.stop()
    report = pytester.path / "mutants.json"
    pytester.runpytest(*common, "--harness-mutants", "--harness-report", str(report))
    loaded = load_report(report)
    found = {s.scenario: s for s in summarize_mutants(loaded.mutants)}
    strong, weak = found["case[strong]"], found["case[weak]"]
    assert strong.control is not None and strong.control.outcome.value == "pass"
    operators = {r.operator for r in loaded.mutants}
    assert {"user_silent", "user_changes_mind", "user_wrong_id", "drop_call"} <= operators
    assert strong.kill_rate >= 0.8, [(r.mutant, r.description) for r in strong.survivors]
    assert weak.kill_rate < strong.kill_rate
    table = render_mutants(loaded)
    strong_block = table.split("case[strong]", 1)[1].split("case[", 1)[0]
    weak_block = table.split("case[weak]", 1)[1].split("case[", 1)[0]
    assert "reads only the last message" in weak_block
    assert "reads only the last message" not in strong_block
