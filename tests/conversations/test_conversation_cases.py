"""Conversation cases end to end (pytester, the real plugin, the openai SDK over loopback).

One simulator script plays both sides: the agent (harness's runtime) and the user
model, each picked by the role its request's system text carries. A scripted
user, a turn graph, a model user recorded then replayed with the network
blocked, a user tool changing the state, a goal check on the state, a foreign
target, a judge over the transcript, and one failing check per kind.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import openai
import pytest

import harness.app
import harness.conversations
import harness.recording
import harness.testing.assertions.trace_assertions
import harness.tools.builtin
import harness.wires.openai.provider
from harness.evals import load_report
from harness.simulator import SimulatorServer
from harness.tracing import TraceTree

PRELOADED = (
    openai,
    harness.app,
    harness.conversations,
    harness.wires.openai.provider,
    harness.recording,
    harness.testing.assertions.trace_assertions,
    harness.tools.builtin,
)
ROOT = Path(__file__).resolve().parents[2]
CODE = "SENTINEL-REFUND-7Q2"
REFUNDED = {"orders": {"W-1001": {"status": "refunded"}}}

SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {"kind": "judge", "when": {"role": "judge"}},
        # The user model.
        {"when": {"role": "user", "last_user_contains": "order id"}, "reply": "It is W-1001."},
        {
            "when": {"role": "user", "last_user_contains": "reference"},
            "reply": "Thanks, that is all. ###STOP###",
        },
        {
            "when": {"role": "user", "last_tool_result_contains": "light turns green"},
            "reply": "Done, it works again. ###STOP###",
        },
        {
            "when": {"role": "user", "last_user_contains": "restart your router"},
            "reply": {"tool_calls": [{"name": "restart_router", "arguments": {}}]},
        },
        {"when": {"role": "user", "last_user_contains": "internet"}, "reply": "unused"},
        {"when": {"role": "user"}, "reply": "Hi, I want a refund."},
        # The agent.
        {
            "when": {"role": "agent", "last_user_contains": "internet"},
            "reply": "Please restart your router.",
        },
        {
            "when": {"role": "agent", "last_user_contains": "W-1001", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "refunds.txt"}}]},
        },
        {
            "when": {"role": "agent", "last_tool_result_contains": "REFUND-CODE"},
            "reply": {
                "tool_calls": [
                    {
                        "name": "write",
                        "arguments": {
                            "path": "state.json",
                            "content": json.dumps(REFUNDED),
                            "mode": "overwrite",
                        },
                    }
                ]
            },
        },
        {
            "when": {"role": "agent", "last_tool_result_contains": "Wrote"},
            "fill": "SENTINEL-[A-Z0-9-]+",
            "reply": "Your refund is issued, reference {match}.",
        },
        {"when": {"role": "agent"}, "reply": "Sure. What is your order id?"},
    ],
}

USER = """
    user:
      persona: Dana, a customer in a hurry.
      goal: Get a refund for order W-1001.
"""
CHECKS = f"""
    checks:
      state: {{path: state.json, equals: {json.dumps(REFUNDED)}}}
      said_contains: [{CODE}]
      conversation_end: user_stop
      max_turns: 3
      tools_called: {{read: 1, write: 1}}
"""
OUTLINE = """
      trace_outline: |
        agent.run
          user.turn
          agent.turn
          user.turn
          agent.turn
            agent.run
              agent.step
                tool.call read
"""


def _case(name: str, user: str, checks: str = CHECKS, extra: str = "") -> str:
    head = f"  - name: {name}\n    workspace: conv/shop\n    tools: [read, write]\n{extra}"
    return head + user.strip("\n") + "\n" + checks.strip("\n") + "\n"


SCRIPTED = (
    USER
    + """      turns:
        - Hi, I want a refund.
        - It is W-1001.
        - "Thanks. ###STOP###"              # quoted: in YAML, " #" starts a comment
"""
)
GRAPH = (
    USER
    + """      graph:
        start: greet
        nodes:
          greet:
            say: Hi, I want a refund.
            then:
              - {when: {contains: ORDER ID}, goto: give}
          give:
            say: It is W-1001.
            then:
              - {when: {contains: reference}, goto: bye}
          bye: {say: "Thanks. ###STOP###"}
"""
)
ROUTER = """
    user:
      persona: Sam, whose internet is down.
      goal: Get the internet working again.
      first_message: My internet is down.
      state: state.json
      tools:
        - name: restart_router
          description: Restart the router at home.
          sets: {router.status: online}
          result: The router restarts; its light turns green.
    checks:
      state: {path: state.json, subset: {router: {status: online}}}
      conversation_end: user_stop
      said_not_contains: [refund]
"""
BROKEN = {
    "said": (f"said_contains: [{CODE}-X]", f"said_contains: no agent turn says '{CODE}-X'"),
    "state": (
        'state: {path: state.json, subset: {orders: {W-1001: {status: "open"}}}}',
        "state: orders.W-1001.status = 'refunded', expected 'open'",
    ),
    "end": ("conversation_end: max_turns", "conversation_end: it ended by user_stop"),
    "judge": (
        'judge: {rubric: "The assistant gives the reference SENTINEL-OTHER-1."}',
        "judge: fail",
    ),
}


def _case_file() -> str:
    text = "version: 1\ncases:\n"
    text += _case("model-user", USER, CHECKS + OUTLINE + f"      judge: {{rubric: {CODE}}}\n")
    text += _case("scripted-user", SCRIPTED)
    text += _case("graph-user", GRAPH)
    text += _case("router", ROUTER, "", extra="")
    for name, (check, _) in BROKEN.items():
        text += _case(f"broken-{name}", SCRIPTED, f"    checks:\n      {check}\n")
    return text


def _project(pytester: pytest.Pytester) -> Path:
    evals = pytester.path / "evals"
    evals.mkdir(exist_ok=True)
    shutil.copy(ROOT / "evals" / "conftest.py", evals / "conftest.py")
    shutil.copy(ROOT / "evals" / "test_cases.py", evals / "test_talks.py")
    shop = pytester.path / "fixtures" / "conv" / "shop"
    shop.mkdir(parents=True)
    (shop / "state.json").write_text(json.dumps({"orders": {"W-1001": {"status": "paid"}}}))
    (shop / "refunds.txt").write_text(f"REFUND-CODE: {CODE}\n")
    folder = pytester.path / "evals" / "cases"
    folder.mkdir(parents=True)
    (folder / "conv.yaml").write_text(_case_file(), "utf-8")
    return folder


def _failures(result: pytest.RunResult) -> dict[str, str]:
    found: dict[str, str] = {}
    current = None
    for line in result.outlines:
        if line.startswith("_") and "test_cases[" in line:
            current = line.split("test_cases[", 1)[1].split("-openai]", 1)[0]
            found[current] = ""
        elif current is not None:
            found[current] += line + "\n"
    return found


@pytest.mark.deep  # two inner sessions of nine rows each (about 10 s)
def test_conversations_record_once_and_replay_offline(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    _project(pytester)
    server: SimulatorServer = sim_server(SCRIPT)
    common = ("--harness-provider", "openai", "-p", "no:randomly")
    recorded = pytester.runpytest(
        *common, "--record-mode", "once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=4, failed=len(BROKEN))
    server.stop()
    report = pytester.path / "report.json"
    replayed = pytester.runpytest(*common, "--harness-block-live", "--harness-report", str(report))
    replayed.assert_outcomes(passed=4, failed=len(BROKEN))
    for run in (recorded, replayed):
        failures = _failures(run)
        assert sorted(failures) == sorted(f"broken-{name}" for name in BROKEN)
        for name, (_, expected) in BROKEN.items():
            assert expected in failures[f"broken-{name}"], (name, failures[f"broken-{name}"])

    rows = {row.scenario: row for row in load_report(report).rows}
    model_row = rows["case[model-user]"]
    assert model_row.judge is not None and model_row.judge.verdict == "pass"
    # One cassette holds the user model's, the agent's and the judge's calls.
    cassette = Path(str(model_row.cassette_path)).read_text("utf-8")
    assert cassette.count("You play the user in a conversation") >= 3
    assert cassette.count("You grade one run of an AI agent") == 1
    # One trace: a span per turn, the runtime's own spans inside the agent turns.
    tree = TraceTree.load(model_row.traces[0])
    assert tree.root.kind == "agent.run"
    assert tree.root.attributes["conversation.turns"] == 3
    assert tree.root.attributes["conversation.stop_reason"] == "user_stop"
    kinds = [span.kind for span in tree.root.children]
    assert kinds == ["user.turn", "agent.turn"] * 2 + ["user.turn", "judge.call"]
    assert [s.attributes["conversation.turn"] for s in tree.root.children[:5]] == [1, 1, 2, 2, 3]
    assert "message.content" not in tree.root.children[0].attributes  # metadata mode
    assert tree.root.children[0].attributes["message.content_chars"] > 0
    router = TraceTree.load(rows["case[router]"].traces[0])
    tool = router.one(kind="user.tool", name="restart_router")
    assert tool.attributes["gen_ai.tool.name"] == "restart_router"


TARGET = '''
import json
from pathlib import Path


class Shop:
    """A foreign agent: an object with respond(history)."""

    def respond(self, history):
        last = history[-1]["content"]
        assert history[0]["role"] == "user"
        if "W-1001" in last:
            return "Refund issued, reference " + Path("refunds.txt").read_text().split()[-1]
        return "Sure. What is your order id?"


SHOP = Shop()


def answer(history):
    return SHOP.respond(history)
'''


@pytest.mark.parametrize(
    "name", [pytest.param("SHOP", id="object"), pytest.param("answer", marks=pytest.mark.deep)]
)
def test_a_foreign_agent_converses_through_a_target(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    folder = _project(pytester)
    pytester.makepyfile(shopbot=TARGET)
    shop = pytester.path / "fixtures" / "conv" / "shop"
    monkeypatch.chdir(shop)  # the bot reads refunds.txt from where it runs
    monkeypatch.syspath_prepend(str(pytester.path))
    checks = f"    checks:\n      said_contains: [{CODE}]\n      conversation_end: user_stop\n"
    text = "version: 1\ncases:\n" + _case(
        "foreign", SCRIPTED, checks, extra=f"    target: shopbot:{name}\n"
    )
    wrong = checks.replace("user_stop", "max_turns")
    text += _case("foreign-wrong", SCRIPTED, wrong, extra=f"    target: shopbot:{name}\n")
    (folder / "conv.yaml").write_text(text, "utf-8")
    result = pytester.runpytest(
        str(pytester.path / "evals"), "-p", "no:randomly", "-v", "--record-mode", "once"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*test_target_cases?foreign? PASSED*"])
    assert "conversation_end: it ended by user_stop, expected max_turns" in result.stdout.str()


@pytest.mark.deep  # records against the simulator, then replays with the network blocked
def test_a_model_user_talks_to_a_foreign_target_through_one_cassette(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, sim_server: Any
) -> None:
    folder = _project(pytester)
    pytester.makepyfile(shopbot=TARGET)
    monkeypatch.chdir(pytester.path / "fixtures" / "conv" / "shop")
    monkeypatch.syspath_prepend(str(pytester.path))
    checks = f"    checks:\n      said_contains: [{CODE}]\n      conversation_end: user_stop\n"
    text = "version: 1\ncases:\n" + _case(
        "foreign-model", USER, checks, "    target: shopbot:SHOP\n"
    )
    (folder / "conv.yaml").write_text(text, "utf-8")
    server: SimulatorServer = sim_server(SCRIPT)
    evals = str(pytester.path / "evals")
    recorded = pytester.runpytest(
        evals, "-p", "no:randomly", "--record-mode", "once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=1)
    server.stop()
    replayed = pytester.runpytest(evals, "-p", "no:randomly", "--harness-block-live")
    replayed.assert_outcomes(passed=1)
    (cassette,) = (pytester.path / "cassettes").rglob("*foreign-model*.yaml")
    assert cassette.read_text("utf-8").count("You play the user in a conversation") >= 3
