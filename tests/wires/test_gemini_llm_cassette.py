"""A raw google-genai tool loop under ``llm_cassette``, as a user writes it: an eval row, mutants.

Recorded once against the simulator (``--harness-base-url``), then replayed
offline as an eval row (provider ``gemini``, the model from the path, source
``simulator``), and mutated at the HTTP layer (``--harness-mutants``): the
mutated answers are rendered as Gemini JSON the SDK parses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import google.genai
import google.genai.types
import pytest

import harness.evals.recorded_responses
import harness.simulator.render
import harness.testing.rows.http_mutants
import harness.wires.gemini.provider
import harness.wires.gemini.simulator
from harness.evals import load_report
from harness.evals.request_mutants import is_request_operator
from harness.simulator import SimulatorServer

# Imported once here, not in each inner run (pytester forgets what an inner run imported).
PRELOADED = (
    google.genai,
    google.genai.types,
    harness.evals.recorded_responses,
    harness.simulator.render,
    harness.testing.rows.http_mutants,
    harness.wires.gemini.provider,
    harness.wires.gemini.simulator,
)
CODE = "RELEASE-CODE-7Q4Z"
SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"tools_include": "read_file", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
        },
        {
            "fill": "RELEASE-CODE-[A-Z0-9]+",
            "when": {"last_tool_result_contains": "RELEASE-CODE"},
            "reply": "The release code is {match}.",
        },
    ],
}
AGENT = f'''
import pytest
from google.genai import types

READ = types.Tool(function_declarations=[types.FunctionDeclaration(
    name="read_file", description="Read a file",
    parameters_json_schema={{"type": "object", "properties": {{"path": {{"type": "string"}}}}}},
)])
CONFIG = types.GenerateContentConfig(
    tools=[READ], automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True)
)


def run(client, workspace):
    contents = [types.Content(role="user", parts=[types.Part(text="What is the release code?")])]
    calls = []
    for _ in range(4):
        answer = client.models.generate_content(
            model="gemini-2.5-flash", contents=contents, config=CONFIG
        )
        if not answer.function_calls:
            return answer.text or "", calls
        contents.append(answer.candidates[0].content)
        results = []
        for call in answer.function_calls:
            path = call.args["path"]
            calls.append(path)
            text = (workspace / path).read_text() if (workspace / path).exists() else "no file"
            results.append(types.Part.from_function_response(
                name=call.name, response={{"output": text}}
            ))
        contents.append(types.Content(role="user", parts=results))
    return "", calls


@pytest.mark.eval("gemini")
def test_gemini(llm_cassette, tmp_path):
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    answer, calls = run(llm_cassette.gemini(), tmp_path)
    assert calls == ["notes.txt"]
    assert "{CODE}" in answer
'''


@pytest.fixture(scope="module")
def sim() -> Any:
    with SimulatorServer(SIM_SCRIPT) as server:
        yield server


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--assert=plain", *args)


def _recorded(pytester: pytest.Pytester, sim: SimulatorServer) -> Path:
    pytester.makepyfile(test_agent=AGENT)
    _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url).assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_agent" / "test_gemini.yaml"
    assert cassette.is_file()
    return cassette


def test_a_genai_loop_records_and_replays_offline_as_a_gemini_row(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    _recorded(pytester, sim)
    hits = sim.hits
    _run(pytester, "--harness-report", "report.json").assert_outcomes(passed=1)
    assert sim.hits == hits  # nothing reached the simulator
    (row,) = load_report(pytester.path / "report.json").rows
    assert (row.provider, row.model, row.source.value) == (
        "gemini",
        "gemini-2.5-flash",
        "simulator",
    )
    assert (row.llm_calls, row.tool_calls) == (2, 1)
    assert row.input_tokens > 0 and row.output_tokens > 0


@pytest.mark.deep
def test_mutants_of_a_gemini_eval_are_served_and_killed(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    _recorded(pytester, sim)
    _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    results = [
        r
        for r in load_report(pytester.path / "m.json").mutants
        if r.scenario == "gemini" and not is_request_operator(r.operator)  # scored apart
    ]
    control = next(r for r in results if r.mutant == "original")
    assert control.outcome.value == "pass" and control.provider == "gemini"
    killed = [r for r in results if r.outcome.value == "killed"]
    assert len(results) > 3
    assert len(killed) >= len(results) - 2, [(r.mutant, r.outcome) for r in results]
