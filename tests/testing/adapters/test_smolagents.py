"""smolagents under harness: its own steps and tool calls as a trace, its raises as kills.

smolagents sends tool calls and results to the model as plain text, so the
traffic shows none; ``from_smolagents`` reads them from the agent's memory. The
agents run for real, over HTTP to the harness simulator on 127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent

from harness.simulator import SimulatorServer
from harness.testing.adapters import from_smolagents, watch_smolagents

pytestmark = pytest.mark.xdist_group("agent-frameworks")

CODE = "RELEASE-CODE-5PL2"
SHELVES = {"shelf-a.txt": "SHELF-A-91", "shelf-b.txt": "SHELF-B-27"}


def _reply(name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


# A manager that calls its librarian twice, one shelf a call: the librarian reads the
# shelf its task names and answers its code. Its memory is reset between the calls.
LIBRARY_RULES: list[dict[str, Any]] = [
    *(
        {"when": {"tools_include": "read_file", "last_user_contains": code},
         "reply": _reply("final_answer", answer=code)}
        for code in SHELVES.values()
    ),
    *(
        {"when": {"tools_include": "read_file", "last_user_contains": shelf},
         "reply": _reply("read_file", path=shelf)}
        for shelf in SHELVES
    ),
    {"when": {"tools_include": "librarian", "last_user_contains": SHELVES["shelf-b.txt"]},
     "reply": _reply("final_answer", answer="Both codes read.")},
    {"when": {"tools_include": "librarian", "last_user_contains": SHELVES["shelf-a.txt"]},
     "reply": _reply("librarian", task="Read shelf-b.txt")},
    {"when": {"tools_include": "librarian", "last_user_contains": "New task"},
     "reply": _reply("librarian", task="Read shelf-a.txt")},
]  # fmt: skip
# smolagents sends observations as user text: the rules read the last user text.
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        *LIBRARY_RULES,
        {
            "when": {"last_user_contains": CODE},
            "reply": {
                "tool_calls": [
                    {"name": "final_answer", "arguments": {"answer": f"The code is {CODE}."}}
                ]
            },
        },
        {
            "when": {"last_user_contains": "Error executing tool"},
            "reply": {
                "tool_calls": [
                    {"name": "final_answer", "arguments": {"answer": "No notes to read."}}
                ]
            },
        },
        {
            "when": {"tools_include": "read_file", "last_user_contains": "New task"},
            "reply": {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        },
        {
            "when": {"tools_include": "researcher", "last_user_contains": "New task"},
            "reply": {
                "tool_calls": [{"name": "researcher", "arguments": {"task": "Find the code."}}]
            },
        },
    ],
}


class ReadFile(Tool):
    name = "read_file"
    description = "Read a text file of the workspace."
    inputs = {"path": {"type": "string", "description": "the file"}}
    output_type = "string"

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace

    def forward(self, path: str) -> str:
        return (self.workspace / path).read_text("utf-8")


def _model(sim: SimulatorServer) -> OpenAIServerModel:
    return OpenAIServerModel("gpt-4.1-mini", api_base=f"{sim.url}/v1", api_key="sim-key")


def test_a_managed_agent_is_a_sub_run_of_the_step_that_called_it(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")
    researcher = ToolCallingAgent(
        tools=[ReadFile(tmp_path)], model=_model(sim), name="researcher",
        description="Finds things in the workspace files.", max_steps=3, verbosity_level=0,
    )  # fmt: skip
    manager = ToolCallingAgent(
        tools=[], model=_model(sim), managed_agents=[researcher], max_steps=3, verbosity_level=0
    )
    answer = str(manager.run("What is the release code?"))

    trace = from_smolagents(manager, mode="replay")
    assert CODE in answer
    assert trace.root.kind == "agent.run" and trace.root.attributes["source"] == "smolagents"
    assert [s.name for s in trace.find_all("tool.call")] == ["researcher", "read_file"]
    assert trace.find("tool.call", name="final_answer") is None  # the answer, not a tool
    assert trace.root.attributes["answer_chars"] == len(answer)
    assert trace.root.attributes["payload"]["answer"] == answer
    assert trace.root.attributes["tool_calls"] == 1  # its own: the sub-run's are its own
    assert len(trace.find_all("llm.call")) == 4  # one per step: two each
    steps = [s for s in trace.root.children if s.kind == "agent.step"]
    assert len(steps) == 2
    called, answered = steps
    sub = trace.one("subagent.run")
    assert trace.one("tool.call", name="researcher") in called.children
    assert sub in trace.one("tool.call", name="researcher").children
    assert trace.one("tool.call", name="read_file") in sub.children
    assert trace.find("subagent.run", within=answered) is None
    read = trace.one("tool.call", name="read_file")
    assert read.attributes["payload"]["arguments"] == {"path": "notes.txt"}
    assert CODE in read.attributes["payload"]["observation"]
    final_ask = answered.children[0].attributes
    assert final_ask["output_tool"] == "final_answer" and final_ask["tool_call_count"] == 0


def test_every_call_of_a_watched_managed_agent_is_a_sub_run(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    for shelf, code in SHELVES.items():
        (tmp_path / shelf).write_text(f"The shelf code is {code}.\n")
    librarian = ToolCallingAgent(
        tools=[ReadFile(tmp_path)], model=_model(sim), name="librarian",
        description="Reads one shelf file and answers its code.", max_steps=3, verbosity_level=0,
    )  # fmt: skip
    manager = ToolCallingAgent(
        tools=[], model=_model(sim), managed_agents=[librarian], max_steps=4, verbosity_level=0
    )
    assert watch_smolagents(manager) is manager
    watch_smolagents(manager)  # twice: still one log, each step kept once
    for _ in range(2):  # the second run's trace pairs its own calls, not the first run's
        assert str(manager.run("What are the two shelf codes?")) == "Both codes read."
        trace = from_smolagents(manager, mode="replay")
        calls = trace.find_all("tool.call", name="librarian")
        assert [call.attributes["payload"]["arguments"] for call in calls] == [
            {"task": "Read shelf-a.txt"},
            {"task": "Read shelf-b.txt"},
        ]
        for call, (shelf, code) in zip(calls, SHELVES.items(), strict=True):
            (sub,) = call.children
            assert sub.kind == "subagent.run" and sub.attributes["agent_name"] == "librarian"
            (read,) = trace.find_all("tool.call", name="read_file", within=sub)
            assert read.attributes["payload"]["arguments"] == {"path": shelf}
            assert code in read.attributes["payload"]["observation"]
        assert (trace.root.attributes["tool_calls"], trace.root.attributes["llm_calls"]) == (2, 7)


def test_a_tool_that_raised_is_an_error_span_in_a_failed_step(
    sim: SimulatorServer, tmp_path: Path
) -> None:
    agent = ToolCallingAgent(
        tools=[ReadFile(tmp_path)], model=_model(sim), max_steps=3, verbosity_level=0
    )
    answer = str(agent.run("What is the release code?"))  # notes.txt is missing

    trace = from_smolagents(agent)
    read = trace.one("tool.call", name="read_file")
    failed, answered = (s for s in trace.root.children if s.kind == "agent.step")
    assert read.status == "error" and read in failed.children
    assert failed.status == "error" and failed.attributes["error"] == "AgentToolExecutionError"
    assert answered.status == "ok" and trace.find("tool.call", within=answered) is None
    assert trace.root.attributes["answer_chars"] == len(answer) == len("No notes to read.")


def test_from_smolagents_refuses_what_is_not_an_agent() -> None:
    from harness.tracing import TraceUsageError

    with pytest.raises(TraceUsageError, match=r"needs a smolagents agent .* got str"):
        from_smolagents("not an agent")


AGENT_TEST = """
from pathlib import Path

import pytest
from smolagents import OpenAIServerModel, Tool, ToolCallingAgent


class ReadFile(Tool):
    name = "read_file"
    description = "Read a text file of the workspace."
    inputs = {"path": {"type": "string", "description": "the file"}}
    output_type = "string"

    def __init__(self, workspace):
        super().__init__()
        self.workspace = workspace

    def forward(self, path):
        return (self.workspace / path).read_text("utf-8")


@pytest.mark.eval("smol")
@pytest.mark.llm_cassette
def test_reads(llm_cassette, tmp_path):
    (tmp_path / "notes.txt").write_text("The release code is CODE.")
    model = OpenAIServerModel("gpt-4.1-mini", client_kwargs={"max_retries": 0})
    model.client = llm_cassette.openai()
    agent = ToolCallingAgent(tools=[ReadFile(tmp_path)], model=model, verbosity_level=0)
    assert "CODE" in str(agent.run("What is the release code?"))
"""


@pytest.mark.deep  # records against the simulator, then runs the mutants: seconds
def test_a_mutant_smolagents_raises_on_is_no_error(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(test_agent=AGENT_TEST.replace("CODE", CODE))
    record = ("--record-mode", "once", "--harness-base-url", sim.url)
    pytester.runpytest_subprocess(*record).assert_outcomes(passed=1)
    run = pytester.runpytest_subprocess("--harness-mutants", "-p", "no:randomly")
    summary = next(line for line in run.outlines if " mutant(s): " in line)
    # Dropping or repeating final_answer makes smolagents raise AgentGenerationError
    # from the cassette's exhaustion: a kill (exhausted), not an error.
    assert " 0 error(s)" in summary, run.stdout.str()
    assert "AgentGenerationError" not in "\n".join(
        line for line in run.outlines if line.lstrip().startswith("error:")
    )


@pytest.mark.deep  # replays the recipe and its mutants in a subprocess: seconds
def test_the_smolagents_recipe_replays_and_kills_its_mutants(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    command = [sys.executable, "-m", "pytest", "examples/smolagents_agent", "-p", "no:randomly"]
    command += ["--harness-cassette-dir", "examples/cassettes", "--record-mode", "none"]
    command += ["-p", "no:cacheprovider", "--basetemp", str(tmp_path / "base")]
    replay = subprocess.run(
        [*command, "--harness-block-live"], cwd=root, env=clean, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    assert replay.returncode == 0, replay.stdout
    mutants = subprocess.run(
        [*command, "--harness-mutants"], cwd=root, env=clean, capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    summary = next(line for line in mutants.stdout.splitlines() if " mutant(s): " in line)
    # Every mutant killed (two exhausted: smolagents raised when final_answer was
    # dropped or repeated), none an error.
    assert " 0 survived, 0 error(s)" in summary, mutants.stdout
