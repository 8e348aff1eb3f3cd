"""``assert_trajectory`` and case-file ``trajectory:`` blocks end to end (pytester): on a
harness run, on ``llm_cassette`` traffic recorded against the simulator, and a
pydantic-ai agent with an output type, whose ``final_result`` is no tool call."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from harness.core.errors import ConfigurationError
from harness.evals import load_report
from harness.evals.cases import load_case_file
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import read_notes_rule, tell_release_code_rule

pytestmark = pytest.mark.xdist_group("agent-frameworks")

CODE = "RELEASE-CODE-T4J9"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        read_notes_rule(),
        {  # pydantic-ai's output tool: the answer is its arguments
            "fill": "RELEASE-CODE-[A-Z0-9]+",
            "when": {"tools_include": "final_result", "last_tool_result_contains": "RELEASE"},
            "reply": {"tool_calls": [{"name": "final_result", "arguments": {"code": "{match}"}}]},
        },
        tell_release_code_rule(),
    ],
}


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--assert=plain", *args)


def _record(pytester: pytest.Pytester, sim: SimulatorServer, *args: str) -> pytest.RunResult:
    return _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url, *args)


HARNESS_RUN = """
import pytest
from harness.providers import tool_call
from harness.testing import assert_trajectory

def _run(make_harness_app, scripted_provider, workspace, **settings):
    workspace.write("a.txt", "alpha")
    workspace.write("b.txt", "beta")
    scripted_provider.add(
        tool_call("read", path="a.txt"), tool_call("read", path="b.txt"), "done"
    )
    make_harness_app(**settings).run("read both")

def test_fits(make_harness_app, scripted_provider, workspace, trace):
    _run(make_harness_app, scripted_provider, workspace)
    assert_trajectory(trace, [("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})])
    assert_trajectory(trace, [("read", {"path": "b.txt"})], match="superset")

def test_superset_args_on_a_replay_trace(make_harness_app, scripted_provider, workspace, trace):
    _run(make_harness_app, scripted_provider, workspace, trace_mode="replay")
    assert_trajectory(trace, [{"name": "read", "args": {}}] * 2, args="superset")

def test_out_of_order(make_harness_app, scripted_provider, workspace, trace):
    _run(make_harness_app, scripted_provider, workspace)
    assert_trajectory(trace, [("read", {"path": "b.txt"}), ("read", {"path": "a.txt"})])
"""


def test_assert_trajectory_on_a_harness_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_run=HARNESS_RUN)
    result = _run(pytester, "-p", "no:randomly")
    result.assert_outcomes(passed=2, failed=1)
    text = result.stdout.str()
    assert "trajectory does not match (match='strict', args='exact')" in text
    assert "first difference: out of order: expected call 1 read(path='b.txt')" in text


RAW_AGENT = """
import json
import pytest
from harness.testing import assert_trajectory

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


def run(client, workspace):
    messages = [{"role": "user", "content": "What is the release code?"}]
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


def test_raw(llm_cassette, tmp_path, trace):
    (tmp_path / "notes.txt").write_text("The code is CODE.")
    run(llm_cassette.openai(), tmp_path)
    assert_trajectory(trace, [{"name": "read_file", "args": {"path": "notes.txt"}}])
    assert_trajectory(llm_cassette, [{"name": "read_file", "args": {}}], args="superset")
    assert_trajectory(llm_cassette, ["read_file", "write_file"], match="subset")
    with pytest.raises(AssertionError, match="missing: expected call 2 write_file"):
        assert_trajectory(llm_cassette, ["read_file", "write_file"], match="superset")
"""


@pytest.mark.deep  # records against the simulator, then replays: seconds
def test_assert_trajectory_on_llm_cassette_traffic(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(test_agent=RAW_AGENT.replace("CODE", CODE))
    _record(pytester, sim).assert_outcomes(passed=1)
    hits = sim.hits
    _run(pytester).assert_outcomes(passed=1)
    assert sim.hits == hits  # replayed offline


TARGET = """
import json
import openai

TOOLS = [{"type": "function", "function": {"name": "read_file", "parameters": {
    "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]


def answer(prompt, workspace):
    client = openai.OpenAI()
    messages = [{"role": "user", "content": prompt}]
    for _ in range(4):
        message = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS
        ).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            content = (workspace / json.loads(call.function.arguments)["path"]).read_text()
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return ""
"""
CASES = """
version: 1
cases:
  - name: fits
    workspace: cases/release
    target: myagent:answer
    prompt: What is the release code?
    checks:
      trajectory:
        calls: [read_file notes.txt]
  - name: misses
    workspace: cases/release
    target: myagent:answer
    prompt: What is the release code?
    checks:
      trajectory:
        calls: [{name: read_file, args: {path: other.txt}}, write_file]
        match: superset
        args: superset
"""


@pytest.mark.deep  # records against the simulator, then replays: seconds
def test_a_case_file_trajectory_block_is_checked(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(myagent=TARGET)
    pytester.syspathinsert()
    (pytester.path / "cases").mkdir()
    (pytester.path / "cases" / "release.yaml").write_text(CASES)
    workspace = pytester.path / "fixtures" / "cases" / "release"
    workspace.mkdir(parents=True)
    (workspace / "notes.txt").write_text(f"The code is {CODE}.\n")
    _record(pytester, sim, "--harness-cases", "cases").assert_outcomes(passed=1, failed=1)
    replay = _run(pytester, "--harness-cases", "cases", "-p", "no:randomly")
    replay.assert_outcomes(passed=1, failed=1)
    text = replay.stdout.str()
    assert "verdict: case 'misses'" in text
    assert "trajectory: trajectory does not match (match='superset', args='superset')" in text
    assert "path: expected 'other.txt', got 'notes.txt'" in text
    assert "missing: expected call 2 write_file(...) was not made" in text


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("{calls: [read], match: exact}", "checks.trajectory.match: Input should be 'strict'"),
        ("{calls: [read], args: loose}", "checks.trajectory.args: Input should be 'exact'"),
        ("{calls: [read], per_tool: {read: fuzzy}}", "checks.trajectory.per_tool.read"),
        ("{calls: [{tool: read}]}", "checks.trajectory.calls[0].tool: unknown field"),
        ("{match: strict}", "checks.trajectory.calls: Field required"),
    ],
    ids=["match", "args", "per_tool", "call", "no-calls"],
)
def test_a_bad_trajectory_block_is_one_line_naming_the_file_and_key(
    tmp_path: Path, block: str, message: str
) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(
        "version: 1\ncases:\n  - name: x\n    workspace: w\n    prompt: p\n"
        f"    checks:\n      trajectory: {block}\n"
    )
    with pytest.raises(ConfigurationError) as raised:
        load_case_file(path, root=tmp_path)
    text = str(raised.value)
    assert text.startswith("c.yaml: case 'x': ") and "\n" not in text
    assert message in text


def test_a_target_case_may_check_its_trajectory(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CASES)
    fits, misses = load_case_file(path)
    assert fits.checks.trajectory is not None and fits.checks.trajectory.match == "strict"
    assert [(c.name, c.args) for c in fits.checks.trajectory.calls] == [
        ("read_file", {"path": "notes.txt"})
    ]
    assert misses.checks.trajectory is not None
    assert misses.checks.trajectory.calls[1].args is None  # a bare name: any arguments
    path.write_text(CASES.replace("{name: read_file, args:", "{name: read_file, arguments:"))
    spelled = load_case_file(path)[1].checks.trajectory
    assert spelled is not None and spelled.calls[0].args == {"path": "other.txt"}


PYDANTIC = """
import asyncio, pytest
from pydantic import BaseModel
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from harness.testing import assert_trajectory


class Release(BaseModel):
    code: str


agent = Agent(output_type=Release, instructions="Read notes.txt first.")


@agent.tool_plain
def read_file(path: str) -> str:
    \"\"\"Read a file.\"\"\"
    return "The code is CODE."


@pytest.mark.eval("pydantic-ai-output")
@pytest.mark.llm_cassette(profile="pydantic-ai")
def test_agent(llm_cassette, trace):
    async def run():
        async with llm_cassette.async_openai() as client:
            model = OpenAIChatModel("gpt-4.1-mini", provider=OpenAIProvider(openai_client=client))
            return (await agent.run("What is the release code?", model=model)).output
    assert asyncio.run(run()).code == "CODE"
    assert_trajectory(llm_cassette, [{"name": "read_file", "args": {"path": "notes.txt"}}])
    assert_trajectory(
        llm_cassette, ["read_file", ("final_result", {"code": "CODE"})], include_output_tools=True
    )
    assert [span.name for span in trace.find_all("tool.call")] == ["read_file"]
    assert trace.find_all("llm.call")[-1].attributes["output_tool"] == "final_result"
"""


@pytest.mark.deep  # records against the simulator, then replays: seconds
def test_a_pydantic_ai_output_type_is_the_answer_not_a_tool_call(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytest.importorskip("pydantic_ai", reason="needs the test extra: pip install -e '.[test]'")
    pytester.makepyfile(test_pyd=PYDANTIC.replace("CODE", CODE))
    warnings = ("-W", "ignore::pytest.PytestUnraisableExceptionWarning")
    _record(pytester, sim, *warnings).assert_outcomes(passed=1)
    cassette = (pytester.path / "cassettes" / "test_pyd" / "test_agent.yaml").read_text()
    assert "final_result" in cassette
    _run(pytester, "--harness-report", "r.json", *warnings).assert_outcomes(passed=1)
    (row,) = load_report(pytester.path / "r.json").rows
    assert (row.provider, row.llm_calls, row.tool_calls) == ("openai", 2, 1)
    assert row.shape is not None and "final_result" not in row.shape
    assert re.search(r"tool\.call read_file", row.shape)
