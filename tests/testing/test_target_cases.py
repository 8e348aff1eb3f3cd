"""Case files for any agent: ``target: module:function`` runs under ``llm_cassette`` in a
project that has no test module of its own for cases (the runner ships in the package)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import harness.evals.recorded_responses
import harness.testing.cases_suite
import harness.wires.openai.provider
from harness.core.errors import ConfigurationError
from harness.evals import load_report
from harness.evals.cases import load_case_file
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import release_code_script

CODE = "RELEASE-CODE-8D3A"
SIM_SCRIPT = release_code_script()
AGENT = """
import json
import openai

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


def answer(prompt, workspace):
    client = openai.OpenAI()  # OPENAI_BASE_URL and the key come from llm_cassette
    messages = [{"role": "user", "content": prompt}]
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
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return ""
"""
CASES = """
version: 1
cases:
  - name: release-code
    workspace: cases/release
    target: myagent:answer
    prompt: What is the release code?
    checks:
      answer_contains: [CODE]
"""


@pytest.mark.deep
def test_a_target_case_records_and_replays_without_a_test_module(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(myagent=AGENT)
    pytester.syspathinsert()
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "release.yaml").write_text(CASES.replace("CODE", CODE))
    workspace = pytester.path / "fixtures" / "cases" / "release"
    workspace.mkdir(parents=True)
    (workspace / "notes.txt").write_text(f"The code is {CODE}.\n")
    with SimulatorServer(SIM_SCRIPT) as sim:
        recorded = pytester.runpytest(
            "--assert=plain", "--harness-cases", "cases", "--record-mode", "once",
            "--harness-base-url", sim.url,
        )  # fmt: skip
        recorded.assert_outcomes(passed=1)
        hits = sim.hits
        replay = pytester.runpytest(
            "--assert=plain", "--harness-cases", "cases", "--harness-report", "r.json"
        )
        replay.assert_outcomes(passed=1)
        assert sim.hits == hits
    cassette = pytester.path / "cassettes" / "harness_cases" / "test_target_cases-release-code.yaml"
    assert cassette.is_file()
    (row,) = load_report(pytester.path / "r.json").rows
    assert (row.scenario, row.provider, row.source.value) == (
        "case[release-code]",
        "openai",
        "simulator",
    )
    assert (row.llm_calls, row.tool_calls) == (2, 1)
    # The same replayed answer against a check it does not meet: the case fails, named.
    (pytester.path / "cases" / "release.yaml").write_text(CASES.replace("CODE", "RELEASE-CODE-0"))
    failed = pytester.runpytest("--assert=plain", "--harness-cases", "cases")
    failed.assert_outcomes(failed=1)
    assert "verdict: case 'release-code'" in failed.stdout.str()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("      tools_called: {read: 1}\n", "tools_called need(s) harness's own runtime"),
        ("      steps: 2\n", "steps need(s) harness's own runtime"),
    ],
    ids=["tools-called", "steps"],
)
def test_a_target_case_refuses_checks_only_harness_runs_can_show(
    tmp_path: Path, extra: str, message: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CASES.replace("CODE", CODE) + extra)
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        load_case_file(path)


def test_the_example_case_that_ships_is_valid() -> None:
    shipped = Path(harness.testing.cases_suite.__file__).with_name("example_cases")
    (case,) = load_case_file(shipped / "release.yaml")
    assert case.target == "myagent.main:answer" and case.checks.answer_contains
