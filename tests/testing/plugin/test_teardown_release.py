"""A test's parsed cassette and run log are released once its teardown is reported (pytester)."""

from __future__ import annotations

from typing import Any

import pytest

from harness.simulator import SimulatorServer

SIM_SCRIPT: dict[str, Any] = {"version": 1, "rules": [{"reply": "hello from the cassette"}]}

TEST = """
import pytest


@pytest.mark.eval("release")
@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_one_call(harness_app):
    assert harness_app.run("Say hello.", session="s").text == "hello from the cassette"
"""

CONFTEST = """
import pytest

from harness.testing.plugin.fixtures import RUN_LOG_KEY
from harness.testing.plugin.misses import HANDLE_KEY

SEEN = []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item):
    held = f"handle={HANDLE_KEY in item.stash} log={RUN_LOG_KEY in item.stash}"
    SEEN.append(f"before-teardown {held}")
    return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    result = yield
    SEEN.append(f"after handle={HANDLE_KEY in item.stash} log={RUN_LOG_KEY in item.stash}")
    return result


def pytest_terminal_summary(terminalreporter):
    for line in SEEN:
        terminalreporter.write_line("SEEN " + line)
"""


def test_the_cassette_handle_is_gone_after_teardown(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    pytester.makepyfile(test_release=TEST)
    pytester.runpytest("--record-mode", "once", "--harness-base-url", server.url).assert_outcomes(
        passed=2
    )
    server.stop()
    pytester.makeconftest(CONFTEST)
    report = pytester.path / "report.json"
    result = pytester.runpytest("--harness-report", str(report))
    result.assert_outcomes(passed=2)
    seen = [line for line in result.stdout.lines if line.startswith("SEEN ")]
    # Held while the test runs (the miss report may need it), gone once it is reported.
    assert (
        seen
        == [
            "SEEN before-teardown handle=True log=True",
            "SEEN after handle=False log=False",
        ]
        * 2
    )
    # The rows were still built from the run log and the cassette before it went.
    from harness.evals import load_report

    rows = load_report(report).rows
    assert sorted(row.provider for row in rows) == ["anthropic", "openai"]
    assert {row.source.value for row in rows} == {"simulator"}
    assert all(row.llm_calls == 1 for row in rows)
