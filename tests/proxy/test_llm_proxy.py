"""``llm_proxy`` end to end (pytester, real subprocesses, the simulator): a Python child on
the openai SDK and a Node child on fetch recorded through the proxy, replayed with the
simulator stopped, as eval rows; a miss; mutants served by the proxy."""

from __future__ import annotations

import shutil
from typing import Any

import pytest

from harness.evals import load_report
from harness.evals.request_mutants import is_request_operator
from harness.simulator import SimulatorServer
from tests.proxy.child_agents import INNER_TESTS, NODE_AGENT, PYTHON_AGENT, SIM_SCRIPT

# Each deep test starts proxy processes and agents; the default run keeps the cheap one.
deep = pytest.mark.deep


def _files(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agents=INNER_TESTS)
    (pytester.path / "agent.py").write_text(PYTHON_AGENT)
    (pytester.path / "agent.js").write_text(NODE_AGENT)


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("--assert=plain", "-p", "no:randomly", *args)


def _record(pytester: pytest.Pytester) -> tuple[pytest.RunResult, int]:
    with SimulatorServer(SIM_SCRIPT) as sim:
        result = _run(pytester, "--record-mode", "once", "--harness-base-url", sim.url)
        return result, sim.hits


@deep
def test_children_record_through_the_proxy_and_replay_with_the_simulator_stopped(
    pytester: pytest.Pytester,
) -> None:
    _files(pytester)
    node = shutil.which("node") is not None
    recorded, hits = _record(pytester)
    recorded.assert_outcomes(passed=2 if node else 1, skipped=0 if node else 1)
    assert hits == (4 if node else 2)
    folder = pytester.path / "cassettes" / "test_agents"
    stored = (folder / "test_python_child.yaml").read_text()
    assert "harness-simulator-placeholder" not in stored  # the key header is never kept
    assert "recorded_against" in stored and "harness simulator" in stored
    # The simulator is gone: the replay is answered by the proxy alone.
    replay = _run(pytester, "--harness-report", "report.json")
    replay.assert_outcomes(passed=2 if node else 1, skipped=0 if node else 1)
    rows = {r.scenario: r for r in load_report(pytester.path / "report.json").rows}
    row = rows["proxy-python"]
    assert (row.provider, row.model, row.source.value) == ("openai", "gpt-4.1-mini", "simulator")
    assert (row.llm_calls, row.tool_calls) == (2, 1)
    check = pytester.run("harness", "cassettes", "check", str(folder))
    assert check.ret == 0, check.stderr.str()


@deep
def test_a_replay_miss_names_the_nearest_recorded_request(pytester: pytest.Pytester) -> None:
    _files(pytester)
    _record(pytester)
    # The workspace now says something else: the tool result, and so the request, differ.
    inner = pytester.path / "test_agents.py"
    inner.write_text(inner.read_text().replace("The code is", "The secret code is"))
    replay = _run(pytester, "-k", "python_child")
    replay.assert_outcomes(failed=1)
    out = replay.stdout.str()
    assert "request not found in cassette" in out
    assert "Nearest recorded request: interaction 1" in out
    assert "The code is" in out and "The secret code is" in out


@deep
def test_mutants_are_served_by_the_proxy_and_killed(pytester: pytest.Pytester) -> None:
    _files(pytester)
    _record(pytester)
    _run(pytester, "-k", "python_child", "--harness-mutants", "--harness-report", "m.json")
    report = load_report(pytester.path / "m.json")
    results: list[Any] = [r for r in report.mutants if not is_request_operator(r.operator)]
    control = next(r for r in results if r.mutant == "original")
    assert control.outcome.value == "pass"
    mutants = [r for r in results if r.mutant != "original"]
    killed = [r for r in mutants if r.outcome.value == "killed"]
    assert mutants and len(killed) / len(mutants) >= 0.8, [(r.mutant, r.outcome) for r in mutants]


def test_a_missing_cassette_fails_the_setup_in_one_line_naming_the_record_command(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_proxied_cli="""
        def test_proxied_cli(llm_proxy):
            raise AssertionError("never reached")
        """
    )
    result = pytester.runpytest("--assert=plain", "-p", "no:randomly")
    result.assert_outcomes(errors=1)
    out = result.stdout.str()
    assert "cassettes/test_proxied_cli/test_proxied_cli.yaml does not exist" in out
    assert "pytest 'test_proxied_cli.py::test_proxied_cli' --record-mode=once" in out
    assert "never reached" not in out
