"""Checks on what was sent, end to end (pytester + the simulator + the real openai SDK):
``assert_requests`` passes and fails with a message naming the request, and under
``--harness-mutants`` an eval that checks its requests kills the request mutants
while one that checks nothing about them lets them survive, and the table says so."""

from __future__ import annotations

import pytest

from harness.evals import load_report
from harness.evals._mutant_table import render_mutants
from harness.simulator import SimulatorServer
from harness.testing import sent_requests, system_sha256
from tests.testing.sim_scripts import release_code_script

pytestmark = pytest.mark.xdist_group("agent-frameworks")

CODE = "RELEASE-CODE-7Q4M"
SYSTEM = "You are a careful release assistant.\nAnswer with the code you read, nothing else."
SIM_SCRIPT = release_code_script()

AGENT = f'''
import json
import pytest
from harness.testing import assert_requests

SYSTEM = {SYSTEM!r}
SCHEMA = {{"type": "object", "properties": {{"path": {{"type": "string"}}}}, "required": ["path"]}}
TOOLS = [{{"type": "function", "function": {{"name": "read_file", "parameters": SCHEMA}}}}]


def run(client, workspace):
    messages = [{{"role": "system", "content": SYSTEM}},
                {{"role": "user", "content": "What is the release code?"}}]
    for _ in range(4):
        message = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS
        ).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            path = json.loads(call.function.arguments)["path"]
            found = workspace / path
            content = found.read_text() if found.exists() else "no such file"
            messages.append({{"role": "tool", "tool_call_id": call.id, "content": content}})
    return ""


def _answer(llm_cassette, tmp_path):
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    answer = run(llm_cassette.openai(), tmp_path)
    assert "{CODE}" in answer
    return answer


@pytest.mark.eval("checked")
def test_checked(llm_cassette, tmp_path):
    _answer(llm_cassette, tmp_path)
    (assert_requests(llm_cassette)
        .model("gpt-4.1-mini")
        .effort(None)
        .temperature(None)
        .system_sha256("{system_sha256(SYSTEM)}")
        .tools({{"read_file": SCHEMA}})
        .stable_prefix()
        .complete_history())


@pytest.mark.eval("unchecked")
def test_unchecked(llm_cassette, tmp_path):
    _answer(llm_cassette, tmp_path)
'''

WRONG_MODEL = """
from test_agent import _answer
from harness.testing import assert_requests


def test_wrong_model(llm_cassette, tmp_path):
    _answer(llm_cassette, tmp_path)
    assert_requests(llm_cassette).model("gpt-5-mini")
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Plain asserts inside, as the other llm_cassette pytester tests (CPython 3.11).
    return pytester.runpytest("--assert=plain", "-p", "no:randomly", *args)


def _recorded(pytester: pytest.Pytester, sim: SimulatorServer) -> None:
    pytester.makepyfile(test_agent=AGENT)
    _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url).assert_outcomes(passed=2)


def test_request_checks_pass_on_what_was_sent_and_fail_naming_the_request(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    _recorded(pytester, sim)
    cassette = pytester.path / "cassettes/test_agent/test_checked.yaml"
    sent = sent_requests(cassette)
    assert [r.model for r in sent] == ["gpt-4.1-mini", "gpt-4.1-mini"]
    assert sent[0].system_sha256 == system_sha256(SYSTEM)
    _run(pytester).assert_outcomes(passed=2)  # replayed offline, checks and all

    pytester.makepyfile(test_wrong=WRONG_MODEL)
    (pytester.path / "cassettes/test_wrong").mkdir(parents=True)
    (pytester.path / "cassettes/test_agent/test_unchecked.yaml").rename(
        pytester.path / "cassettes/test_wrong/test_wrong_model.yaml"
    )
    failed = _run(pytester, "test_wrong.py")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*RequestAssertionError: request 0 of 2 (openai): model: expected 'gpt-5-mini', "
            "sent 'gpt-4.1-mini'; pass the model to the agent's client*"
        ]
    )


@pytest.mark.deep  # test_request_cases kills request mutants in a second
def test_request_mutants_are_killed_by_request_checks_and_survive_without(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    _recorded(pytester, sim)
    _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    report = load_report(pytester.path / "m.json")
    request_ops = {"drop_system_line", "change_effort", "rename_param", "reorder_prefix"}
    outcomes: dict[str, dict[str, str]] = {}
    for found in report.mutants:
        if found.operator in request_ops:
            outcomes.setdefault(found.scenario, {})[found.operator] = found.outcome.value
        elif found.mutant == "original":
            assert found.outcome.value == "pass", (found.scenario, found.message)
    assert outcomes["checked"] == dict.fromkeys(request_ops, "killed")
    assert outcomes["unchecked"] == dict.fromkeys(request_ops, "survived")
    output = render_mutants(report)  # the table `harness eval --mutants` prints
    assert "request mutants: 4/4 killed" in output
    assert "request mutants: 0/4 killed — no check looks at what was sent" in output
    assert "request mutants: 4/8 killed" in output  # the suite's line
    killed = {r.operator: r.message for r in report.mutants if r.scenario == "checked"}
    assert "system prompt sha256" in killed["drop_system_line"]
    assert "effort: expected None, sent 'high'" in killed["change_effort"]
    assert "tool 'read_file' parameters" in killed["rename_param"]
    assert "message 0 differs" in killed["reorder_prefix"]


TARGET = f"""
import json
import openai

SCHEMA = {{"type": "object", "properties": {{"path": {{"type": "string"}}}}, "required": ["path"]}}
TOOLS = [{{"type": "function", "function": {{"name": "read_file", "parameters": SCHEMA}}}}]


def answer(prompt, workspace):
    client = openai.OpenAI()  # OPENAI_BASE_URL and the key come from llm_cassette
    messages = [{{"role": "system", "content": {SYSTEM!r}}}, {{"role": "user", "content": prompt}}]
    for _ in range(4):
        message = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS
        ).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            path = json.loads(call.function.arguments)["path"]
            content = (workspace / path).read_text()
            messages.append({{"role": "tool", "tool_call_id": call.id, "content": content}})
    return ""
"""
TARGET_CASE = f"""
version: 1
cases:
  - name: release-code
    workspace: cases/release
    target: myagent:answer
    prompt: What is the release code?
    request:
      model: MODEL
      system_sha256: {system_sha256(SYSTEM)}
      tools: [read_file]
      stable_prefix: true
      complete_history: true
    checks:
      answer_contains: [{CODE}]
"""


def test_a_target_case_checks_the_requests_its_agent_sent(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(myagent=TARGET)
    pytester.syspathinsert()
    (pytester.path / "cases").mkdir()
    case_file = pytester.path / "cases" / "release.yaml"
    case_file.write_text(TARGET_CASE.replace("MODEL", "gpt-4.1-mini"))
    workspace = pytester.path / "fixtures" / "cases" / "release"
    workspace.mkdir(parents=True)
    (workspace / "notes.txt").write_text(f"The code is {CODE}.\n")
    args = ("--harness-cases", "cases")
    _run(pytester, *args, "--record-mode", "once", "--harness-base-url", sim.url).assert_outcomes(
        passed=1
    )
    _run(pytester, *args).assert_outcomes(passed=1)
    case_file.write_text(TARGET_CASE.replace("MODEL", "gpt-5-mini"))
    failed = _run(pytester, *args)
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        [
            "*verdict: case 'release-code'*",
            "*request: request 0 of 2 (openai): model: expected 'gpt-5-mini', sent 'gpt-4.1-mini'*",
        ]
    )
