"""An agent whose tool calls an HTTP API, under ``llm_cassette`` end to end (pytester, the
simulator, the real openai SDK and httpx over 127.0.0.1): the tool's exchange is recorded
beside the model's but is neither the row's source nor its cost, replays byte for byte,
is matched loosely in mutant runs, and ``tool_calls()`` reads the calls from the traffic."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.evals import load_report
from harness.evals.request_mutants import is_request_operator
from harness.simulator import SimulatorServer


def _toolserver() -> Any:
    """The recording tests' loopback weather API, loaded from its file (no package path)."""
    path = Path(__file__).parents[2] / "recording" / "toolserver.py"
    spec = importlib.util.spec_from_file_location("harness_tests_toolserver", path)
    assert spec is not None and spec.loader is not None
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    if not hasattr(module, "tool_server"):
        spec.loader.exec_module(module)
    return module


tool_server = _toolserver().tool_server
ToolServer = Any

pytestmark = pytest.mark.xdist_group("agent-frameworks")

SIM_SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"tools_include": "get_weather", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
        },
        {
            "fill": "sunny|rainy",
            "when": {"last_tool_result_contains": "sky"},
            "reply": "The sky in Paris is {match}.",
        },
    ],
}

# A weather agent as a user writes it: the tool hands the API's text to the model as is.
WEATHER_AGENT = """
import json, os
import httpx
import pytest

TOOLS = [{"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]


def get_weather(city):
    proxy = os.environ.get("WEATHER_PROXY") or None
    with httpx.Client(proxy=proxy) as http:
        path = os.environ.get("WEATHER_PATH", "/forecast")
        return http.get("http://api.weather.example" + path, params={"city": city}).text


def run(client):
    messages = [{"role": "user", "content": "What is the weather in Paris?"}]
    for _ in range(4):
        message = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS
        ).choices[0].message
        if not message.tool_calls:
            return message.content
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            result = get_weather(**json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return ""


@pytest.mark.eval("weather")
def test_weather(llm_cassette):
    answer = run(llm_cassette.openai())
    assert "sunny" in answer
    calls = llm_cassette.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"})]
    assert calls[0].result == '{"city":"Paris","sky":"sunny","temp_c":21.5,"note":"brise légère"}'
"""


@pytest.fixture
def weather(monkeypatch: pytest.MonkeyPatch) -> Any:
    with tool_server() as server:
        monkeypatch.setenv("WEATHER_PROXY", server.url)
        yield server


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--assert=plain", *args)


def _record(pytester: pytest.Pytester, sim: SimulatorServer, weather: ToolServer) -> Path:
    pytester.makepyfile(test_weather_agent=WEATHER_AGENT)
    recorded = _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url)
    recorded.assert_outcomes(passed=1)
    assert weather.hits == ["api.weather.example/forecast"]
    return pytester.path / "cassettes" / "test_weather_agent" / "test_weather.yaml"


def test_a_tools_http_replays_exactly_and_is_neither_source_nor_cost(
    pytester: pytest.Pytester, sim: SimulatorServer, weather: ToolServer, monkeypatch: Any
) -> None:
    cassette = _record(pytester, sim, weather)
    assert "api.weather.example" in cassette.read_text("utf-8")  # recorded in the same file
    monkeypatch.delenv("WEATHER_PROXY")  # replay reaches neither server
    hits = (sim.hits, list(weather.hits))
    replay = _run(pytester, "--harness-block-live", "--harness-report", "report.json")
    replay.assert_outcomes(passed=1)
    assert (sim.hits, weather.hits) == hits
    (row,) = load_report(pytester.path / "report.json").rows
    assert row.source.value == "simulator"
    assert row.cost_usd is None  # the simulator's tokens are no spend
    assert (row.provider, row.llm_calls, row.tool_calls) == ("openai", 2, 1)
    monkeypatch.setenv("WEATHER_PATH", "/alerts")  # the tool changed its endpoint
    missed = _run(pytester, "--harness-block-live")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines(
        ["*GET /alerts?city=Paris to host api.weather.example (tool traffic)*"]
    )


@pytest.mark.deep
def test_mutants_of_a_tool_using_agent_run_without_errors(
    pytester: pytest.Pytester, sim: SimulatorServer, weather: ToolServer, monkeypatch: Any
) -> None:
    _record(pytester, sim, weather)
    monkeypatch.delenv("WEATHER_PROXY")
    _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    results = [
        r
        for r in load_report(pytester.path / "m.json").mutants
        if not is_request_operator(r.operator)  # scored apart: only request checks kill them
    ]
    outcomes = {r.mutant: r.outcome.value for r in results}
    assert outcomes.pop("original") == "pass"
    assert outcomes and "error" not in outcomes.values(), [
        (r.mutant, r.outcome.value, r.message) for r in results
    ]
    assert all(r.source.value == "simulator" for r in results)
    assert sum(v == "killed" for v in outcomes.values()) >= 0.8 * len(outcomes)


@pytest.mark.deep
def test_a_mutant_that_sends_a_tool_off_the_recording_is_exhausted_not_an_error(
    pytester: pytest.Pytester, sim: SimulatorServer, weather: ToolServer, monkeypatch: Any
) -> None:
    # A REST API with the argument in its path: a mutated city is a path never recorded.
    agent = WEATHER_AGENT.replace(
        '"http://api.weather.example" + path, params={"city": city}',
        'f"http://api.weather.example{path}/{city}", params={"city": city}',
    )
    pytester.makepyfile(test_weather_agent=agent)
    _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url).assert_outcomes(passed=1)
    monkeypatch.delenv("WEATHER_PROXY")
    _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    results = load_report(pytester.path / "m.json").mutants
    corrupted = next(r for r in results if r.mutant.startswith("corrupt_arg"))
    assert corrupted.outcome.value == "exhausted", corrupted
    assert "tool traffic beyond the recording (GET api.weather.example/forecast/" in (
        corrupted.message
    )
    assert "error" not in {r.outcome.value for r in results}
