"""``llm_cassette`` end to end (pytester + the simulator + the real SDKs): record, replay
offline, eval rows from the traffic, telemetry answered locally, the live-call guard,
epochs and mutants on an agent harness did not build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.evals import load_report
from harness.evals.request_mutants import is_request_operator
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import release_code_script

# One worker imports the heavy SDK for all of this module (see the root conftest).
pytestmark = pytest.mark.xdist_group("agent-frameworks")

CODE = "RELEASE-CODE-5K2P"
SIM_SCRIPT = release_code_script({"when": {"last_user_contains": "say hello"}, "reply": "hello"})

# A raw openai tool loop, as a user would write it, and an eval of it.
RAW_AGENT = f'''
import json, os
import pytest

TOOLS = [{{"type": "function", "function": {{"name": "read_file", "parameters": {{
    "type": "object", "properties": {{"path": {{"type": "string"}}}}, "required": ["path"]}}}}}}]


def run(client, workspace):
    messages = [{{"role": "user", "content": "What is the release code?"}}]
    calls = []
    for _ in range(4):
        message = client.chat.completions.create(
            model="gpt-4.1-mini", messages=messages, tools=TOOLS
        ).choices[0].message
        if not message.tool_calls:
            return message.content, calls
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            path = json.loads(call.function.arguments)["path"]
            calls.append(path)
            content = (workspace / path).read_text() if (workspace / path).exists() else "no file"
            messages.append({{"role": "tool", "tool_call_id": call.id, "content": content}})
    return "", calls


@pytest.mark.eval("raw")
def test_raw(llm_cassette, tmp_path):
    assert os.environ["OPENAI_BASE_URL"] == llm_cassette.base_url("openai")
    if llm_cassette.replaying:
        assert llm_cassette.base_url("openai") == "https://api.openai.com/v1"
        assert os.environ["OPENAI_API_KEY"] == "harness-replay-placeholder"
    (tmp_path / "notes.txt").write_text("The code is {CODE}.")
    answer, calls = run(llm_cassette.openai(), tmp_path)
    assert calls == ["notes.txt"]
    assert "{CODE}" in answer
'''


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    # Plain asserts inside: rewriting harness modules first imported deep in an inner
    # run's stack trips a CPython 3.11 compiler check ("AST constructor recursion").
    return pytester.runpytest("--assert=plain", *args)


def _record(pytester: pytest.Pytester, sim: SimulatorServer, *args: str) -> pytest.RunResult:
    return _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url, *args)


def _rows(path: Path) -> list[Any]:
    return list(load_report(path).rows)


@pytest.mark.deep
def test_a_raw_sdk_loop_records_against_the_simulator_and_replays_offline_as_an_eval_row(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(test_agent=RAW_AGENT)
    _record(pytester, sim).assert_outcomes(passed=1)
    cassette = pytester.path / "cassettes" / "test_agent" / "test_raw.yaml"
    assert cassette.is_file()
    hits = sim.hits
    replay = _run(pytester, "--harness-report", "report.json")
    replay.assert_outcomes(passed=1)
    assert sim.hits == hits  # nothing reached the simulator
    (row,) = _rows(pytester.path / "report.json")
    assert (row.provider, row.model, row.source.value) == ("openai", "gpt-4.1-mini", "simulator")
    assert (row.llm_calls, row.tool_calls, row.steps) == (2, 1, 2)
    assert row.input_tokens > 0 and row.output_tokens > 0
    assert row.cassette == "test_raw.yaml"


@pytest.mark.deep
def test_epochs_and_mutants_on_a_foreign_eval(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(
        test_agent=RAW_AGENT,
        test_unrecorded="""
        import pytest

        @pytest.mark.eval("unrecorded")
        def test_unrecorded(llm_cassette):
            pass
        """,
    )
    _record(pytester, sim, "test_agent.py").assert_outcomes(passed=1)
    epochs = _run(pytester, "test_agent.py", "--harness-epochs", "2", "--harness-report", "e.json")
    epochs.assert_outcomes(passed=2)
    rows = _rows(pytester.path / "e.json")
    assert [(r.epoch, r.verdict.value, r.provider) for r in rows] == [
        (0, "pass", "openai"),
        (1, "pass", "openai"),
    ]
    mutated = _run(pytester, "--harness-mutants", "--harness-report", "m.json")
    report = load_report(pytester.path / "m.json")
    by_eval: dict[str, list[Any]] = {}
    for result in report.mutants:
        if not is_request_operator(result.operator):  # scored apart: only request checks kill them
            by_eval.setdefault(result.scenario, []).append(result)
    control = next(r for r in by_eval["raw"] if r.mutant == "original")
    assert control.outcome.value == "pass" and control.provider == "openai"
    killed = [r for r in by_eval["raw"] if r.outcome.value == "killed"]
    assert len(killed) >= len(by_eval["raw"]) - 2, [(r.mutant, r.outcome) for r in by_eval["raw"]]
    (unmutated,) = by_eval["unrecorded"]
    assert unmutated.outcome.value == "not_mutated"
    assert "no cassette at" in unmutated.message and "record it first" in unmutated.message
    assert "scripted" not in mutated.stdout.str()


@pytest.mark.deep
def test_telemetry_is_answered_locally_never_stored_and_never_a_miss(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(
        test_telemetry="""
        import httpx2, uuid

        def test_exports(llm_cassette):
            with httpx2.Client() as http:
                for url in (
                    "https://api.openai.com/v1/traces/ingest",
                    "https://logfire-us.pydantic.dev/v1/traces",
                    "https://api.smith.langchain.com/runs/batch",
                ):
                    sent = http.post(url, json={"span": uuid.uuid4().hex})
                    assert sent.status_code == 204
            client = llm_cassette.openai()
            client.chat.completions.create(
                model="gpt-4.1-mini", messages=[{"role": "user", "content": "say hello"}]
            )
            assert len(llm_cassette.exchanges()) == 1
        """
    )
    _record(pytester, sim).assert_outcomes(passed=1)
    stored = (pytester.path / "cassettes" / "test_telemetry" / "test_exports.yaml").read_text()
    assert "traces" not in stored and "pydantic.dev" not in stored and "langchain" not in stored
    assert stored.count("harness_match") == 1
    _run(
        pytester,
    ).assert_outcomes(passed=1)  # fresh span ids: still no miss


LIVE_TESTS = """
import openai, pytest

def call():
    client = openai.OpenAI(api_key="sk-live-call-test", max_retries=0)
    client.chat.completions.create(
        model="gpt-4.1-mini", messages=[{"role": "user", "content": "hi"}]
    )

@pytest.mark.eval("live-call")
def test_eval_calls_out():
    call()

@pytest.mark.eval("swallowed")
def test_eval_swallows_the_error():
    try:
        call()
    except Exception:
        pass  # a framework that logs and carries on

def test_plain_test_calls_out():
    call()
"""


@pytest.mark.deep
def test_a_live_call_no_cassette_answers_fails_the_test_with_one_clear_error(
    pytester: pytest.Pytester,
) -> None:
    # A basename no other test module has: pytester imports it into this process.
    pytester.makepyfile(test_guarded_calls=LIVE_TESTS)
    guarded = _run(pytester, "-k", "eval")
    # The swallowed one passes its body, then fails at teardown with the same error.
    guarded.assert_outcomes(failed=1, passed=1, errors=1)
    text = guarded.stdout.str()
    assert text.count("live call to api.openai.com blocked (an eval test)") == 2, text
    assert "openai/_base_client.py" not in text  # the error alone, no SDK frames
    everywhere = _run(pytester, "-k", "plain", "--harness-block-live")
    everywhere.assert_outcomes(failed=1)
    assert "blocked (--harness-block-live)" in everywhere.stdout.str()


AGENTS_TEST = """
import asyncio, logging, pytest
import agents
from agents import Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, Runner, function_tool

@function_tool
def read_file(path: str) -> str:
    \"\"\"Read a file.\"\"\"
    return "The code is %s." % "CODE"

@pytest.mark.eval("agents-sdk")
@pytest.mark.llm_cassette(**SETTINGS)
def test_agent(llm_cassette, caplog):
    caplog.set_level(logging.DEBUG, logger="openai.agents")
    async def run():
        async with llm_cassette.async_openai() as client:
            model = MODEL(model="gpt-4.1-mini", openai_client=client)
            agent = Agent(name="reader", tools=[read_file], model=model)
            return await Runner.run(agent, "What is the release code?")
    assert "CODE" in str(asyncio.run(run()).final_output)
    agents.flush_traces()  # the SDK's exporter POSTs /v1/traces/ingest now, in the cassette
    assert "Exported" in caplog.text and "Tracing client error" not in caplog.text
"""


@pytest.mark.deep
@pytest.mark.parametrize(
    "model", ["OpenAIChatCompletionsModel", "OpenAIResponsesModel"], ids=["chat", "responses"]
)
def test_an_agents_sdk_run_replays_despite_its_random_cache_key(
    pytester: pytest.Pytester, sim: SimulatorServer, model: str
) -> None:
    pytest.importorskip("agents", reason="needs the test extra: pip install -e '.[test]'")
    source = AGENTS_TEST.replace("CODE", CODE).replace("MODEL(", f"{model}(")
    pytester.makepyfile(test_sdk=source.replace("**SETTINGS", 'profile="openai-agents"'))
    _record(pytester, sim).assert_outcomes(passed=1)
    stored = (pytester.path / "cassettes" / "test_sdk" / "test_agent.yaml").read_text()
    # The trace export was answered (the test saw it succeed) and never stored.
    assert "traces/ingest" not in stored and stored.count("harness_match") == 2
    assert '"prompt_cache_key"' not in stored  # the SDK sends none to the simulator
    # Replayed on the SDK's default host, the SDK adds a fresh prompt_cache_key (and
    # on chat completions store); the trace export is no miss in a strict eval test.
    _run(pytester, "--harness-report", "r.json").assert_outcomes(passed=1)
    (row,) = _rows(pytester.path / "r.json")
    provider = "openai-responses" if model == "OpenAIResponsesModel" else "openai"
    assert (row.provider, row.llm_calls, row.tool_calls) == (provider, 2, 1)
    assert row.input_tokens > 0
    pytester.makepyfile(test_sdk=source.replace("**SETTINGS", ""))
    strict = _run(
        pytester,
    )
    strict.assert_outcomes(failed=1)
    assert "prompt_cache_key" in strict.stdout.str()


PYDANTIC_TEST = """
import asyncio, pytest
from pydantic_ai import Agent
from pydantic_ai.models.anthropic import AnthropicModel
from pydantic_ai.providers.anthropic import AnthropicProvider

agent = Agent(instructions="Read notes.txt first.")

@agent.tool_plain
def read_file(path: str) -> str:
    \"\"\"Read a file.\"\"\"
    return "The code is CODE."

@pytest.mark.eval("pydantic-ai")
@pytest.mark.llm_cassette(profile="pydantic-ai")
def test_agent(llm_cassette):
    async def run():
        async with llm_cassette.async_anthropic() as client:
            provider = AnthropicProvider(anthropic_client=client)
            model = AnthropicModel("claude-sonnet-4-6", provider=provider)
            if not llm_cassette.stream:
                return (await agent.run("What is the release code?", model=model)).output
            async with agent.run_stream("What is the release code?", model=model) as streamed:
                return await streamed.get_output()
    assert "CODE" in asyncio.run(run())
"""


@pytest.mark.deep
def test_a_pydantic_ai_agent_on_anthropic_streams_into_its_own_cassette(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytest.importorskip("pydantic_ai", reason="needs the test extra: pip install -e '.[test]'")
    pytester.makepyfile(test_pyd=PYDANTIC_TEST.replace("CODE", CODE))
    _record(
        pytester,
        sim,
        "--harness-stream",
        "both",
        "-W",
        "ignore::pytest.PytestUnraisableExceptionWarning",
    ).assert_outcomes(passed=2)
    folder = pytester.path / "cassettes" / "test_pyd"
    assert sorted(p.name for p in folder.iterdir()) == ["test_agent-stream.yaml", "test_agent.yaml"]
    assert "event: message_start" in (folder / "test_agent-stream.yaml").read_text()
    _run(pytester, "--harness-stream", "both", "--harness-report", "r.json").assert_outcomes(
        passed=2
    )
    rows = _rows(pytester.path / "r.json")
    assert {(r.scenario, r.provider, r.tool_calls) for r in rows} == {
        ("pydantic-ai", "anthropic", 1),
        ("pydantic-ai[stream]", "anthropic", 1),
    }


def test_bad_settings_fail_with_one_line_naming_the_setting(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_bad="""
        import pytest

        @pytest.mark.llm_cassette(profil="openai-agents")
        def test_typo(llm_cassette):
            pass

        @pytest.mark.llm_cassette(profile="langchain")
        def test_unknown_profile(llm_cassette):
            pass
        """
    )
    result = _run(
        pytester,
    )
    result.assert_outcomes(errors=2)
    text = result.stdout.str()
    assert "llm_cassette does not know profil" in text
    assert "unknown llm_cassette profile 'langchain'" in text


TRACE_TEST = """

def test_shape(llm_cassette, tmp_path, trace):
    (tmp_path / "notes.txt").write_text("The code is CODE.")
    run(llm_cassette.openai(), tmp_path)
    assert trace.root.kind == "agent.run"
    assert len(trace.find_all(kind="llm.call")) == 2
    assert trace.one(kind="tool.call", name="read_file") is not None
"""


@pytest.mark.deep
def test_trace_in_an_llm_cassette_test_is_the_traffic_trace(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytest.importorskip("harness.traffic", reason="the traffic trace builder lands apart")
    pytester.makepyfile(test_agent=RAW_AGENT + TRACE_TEST.replace("CODE", CODE))
    _record(pytester, sim, "-k", "shape").assert_outcomes(passed=1)
    _run(pytester, "-k", "shape").assert_outcomes(passed=1)
