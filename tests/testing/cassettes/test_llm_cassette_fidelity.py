"""What users of agent frameworks hit under ``llm_cassette`` (pytester, the simulator and the
real SDKs over 127.0.0.1): offline hosts, parametrize ids in names, per-test stream twins,
and the Agents SDK recording two tests in one session."""

from __future__ import annotations

import pytest

from harness.evals import load_report
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import release_code_script

pytestmark = pytest.mark.xdist_group("agent-frameworks")

SIM_SCRIPT = release_code_script({"when": {"last_user_contains": "hello"}, "reply": "hello there"})
HELLO = """
def hello(client, stream=False):
    asked = dict(model="gpt-4.1-mini", messages=[{"role": "user", "content": "say hello"}])
    if not stream:
        return client.chat.completions.create(**asked).choices[0].message.content
    chunks = client.chat.completions.create(**asked, stream=True)
    return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("--assert=plain", *args)


def _record(pytester: pytest.Pytester, sim: SimulatorServer, *args: str) -> pytest.RunResult:
    return _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url, *args)


def _cassettes(pytester: pytest.Pytester, folder: str) -> list[str]:
    return sorted(p.name for p in (pytester.path / "cassettes" / folder).glob("*.yaml"))


@pytest.mark.deep
def test_an_offline_host_fails_with_the_librarys_own_connection_error(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(
        test_offline=HELLO
        + """
import httpx, pytest, requests

PRICES = "https://prices.example.com/model_prices.json"


def load_prices():  # what LiteLLM does at import: fall back when offline
    try:
        return httpx.get(PRICES).json()
    except httpx.ConnectError:
        return "fallback"


@pytest.mark.llm_cassette(offline_hosts=["prices.example.com"])
def test_offline(llm_cassette):
    assert load_prices() == "fallback"
    with pytest.raises(requests.ConnectionError):
        requests.get(PRICES, timeout=5)
    assert hello(llm_cassette.openai()) == "hello there"
"""
    )
    _record(pytester, sim).assert_outcomes(passed=1)
    _run(pytester, "--harness-block-live").assert_outcomes(passed=1)


# pytest-repeat's hook (its parameter and ids), for a run without the plugin installed.
REPEAT_CONFTEST = """
def pytest_generate_tests(metafunc):
    count = 2
    if metafunc.definition.get_closest_marker("repeat") is None:
        return
    metafunc.fixturenames.append("__pytest_repeat_step_number")
    metafunc.parametrize(
        "__pytest_repeat_step_number", range(count), indirect=True,
        ids=lambda n: f"{n + 1}-{count}",
    )


import pytest

@pytest.fixture
def __pytest_repeat_step_number(request):
    return request.param


def pytest_configure(config):
    config.addinivalue_line("markers", "repeat: run twice")
"""


@pytest.mark.deep
def test_cassette_and_row_names_use_the_parametrize_ids(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makeconftest(REPEAT_CONFTEST)
    pytester.makepyfile(
        test_named=HELLO
        + """
import pytest


class City:  # its repr names its address: a different name every run
    def __init__(self, name):
        self.name = name


@pytest.mark.eval("hello")
@pytest.mark.parametrize("city", [City("Paris"), City("Lyon")], ids=["paris", "lyon"])
def test_hello(llm_cassette, city):
    assert hello(llm_cassette.openai()) == "hello there"


@pytest.mark.repeat
def test_repeated(llm_cassette):
    assert hello(llm_cassette.openai()) == "hello there"
"""
    )
    _record(pytester, sim).assert_outcomes(passed=4)
    assert _cassettes(pytester, "test_named") == [
        "test_hello-lyon.yaml",
        "test_hello-paris.yaml",
        "test_repeated-1-2.yaml",
        "test_repeated-2-2.yaml",
    ]
    _run(pytester, "--harness-report", "r.json").assert_outcomes(passed=4)
    rows = load_report(pytester.path / "r.json").rows
    assert sorted(r.scenario for r in rows) == ["hello[lyon]", "hello[paris]"]


@pytest.mark.deep
def test_one_test_opts_into_stream_twins_with_its_marker(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytester.makepyfile(
        test_streams=HELLO
        + """
import pytest


@pytest.mark.llm_cassette(stream="both")
def test_twinned(llm_cassette):
    assert hello(llm_cassette.openai(), stream=llm_cassette.stream) == "hello there"


def test_single(llm_cassette):
    assert not llm_cassette.stream
    assert hello(llm_cassette.openai()) == "hello there"
"""
    )
    recorded = _record(pytester, sim, "-v")
    recorded.assert_outcomes(passed=3)
    recorded.stdout.fnmatch_lines(["*test_twinned?plain?*PASSED*", "*test_twinned?stream?*PASSED*"])
    assert _cassettes(pytester, "test_streams") == [
        "test_single.yaml",
        "test_twinned-stream.yaml",
        "test_twinned.yaml",
    ]
    stream = pytester.path / "cassettes" / "test_streams" / "test_twinned-stream.yaml"
    assert "text/event-stream" in stream.read_text("utf-8")
    _run(pytester).assert_outcomes(passed=3)
    refused = pytester.makepyfile(
        test_bad_stream="""
import pytest

@pytest.mark.llm_cassette(stream="sometimes")
def test_bad(llm_cassette):
    pass
"""
    )
    bad = _run(pytester, str(refused))
    assert "use 'both' (a plain and a streaming run), 'on' (streaming only) or 'off'" in (
        bad.stderr.str() + bad.stdout.str()
    )


AGENTS_TWICE = """
import asyncio
import pytest
from agents import Agent, Runner, function_tool


@function_tool
def read_file(path: str) -> str:
    \"\"\"Read a file of the workspace.\"\"\"
    return "The code is RELEASE-CODE-1A2B."


def ask():
    agent = Agent(name="reader", instructions="Answer from the files.", tools=[read_file],
                  model="gpt-4.1-mini")
    # The SDK's default client: one process-wide pool unless the profile gives a fresh one.
    return asyncio.run(Runner.run(agent, "What is the release code?"))


@pytest.mark.llm_cassette(profile="openai-agents")
def test_first(llm_cassette):
    assert "RELEASE-CODE-1A2B" in str(ask().final_output)


@pytest.mark.llm_cassette(profile="openai-agents")
def test_second(llm_cassette):
    assert "RELEASE-CODE-1A2B" in str(ask().final_output)
"""


@pytest.mark.deep
def test_the_agents_sdk_records_two_tests_in_one_session(
    pytester: pytest.Pytester, sim: SimulatorServer
) -> None:
    pytest.importorskip("agents")
    pytester.makepyfile(test_agents_twice=AGENTS_TWICE)
    recorded = _record(pytester, sim)
    recorded.assert_outcomes(passed=2)
    assert "Event loop is closed" not in recorded.stdout.str()
    assert _cassettes(pytester, "test_agents_twice") == ["test_first.yaml", "test_second.yaml"]
    _run(pytester, "--harness-block-live").assert_outcomes(passed=2)


def test_stream_cannot_be_set_in_the_config_fixture() -> None:
    from harness.core.errors import ConfigurationError
    from harness.testing.cassettes.llm_config import resolve_config

    with pytest.raises(
        ConfigurationError, match=r"use @pytest\.mark\.llm_cassette\(stream=\.\.\.\)"
    ):
        resolve_config({"stream": "both"}, None)
    assert resolve_config(None, {"stream": "both", "offline_hosts": "A.example"}).offline_hosts == (
        "a.example",
    )
