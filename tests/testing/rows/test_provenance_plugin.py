"""Every eval row says where its answers came from, end to end (pytester + the simulator)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openai
import pytest

import harness.app
import harness.recording
import harness.testing.assertions.trace_assertions
import harness.tools.builtin
import harness.wires.anthropic.provider
import harness.wires.openai.provider
from harness.evals import Source, load_report, render_table
from harness.simulator import SimulatorServer
from tests.testing.sim_scripts import read_a_txt_script

SIM_SCRIPT = read_a_txt_script()

EVALS = """
import pytest

from harness.providers import tool_call


@pytest.mark.eval("recorded")
@pytest.mark.parametrize("provider_name", ["openai", "anthropic"])
def test_recorded(harness_app, workspace):
    workspace.write("a.txt", "alpha")
    assert harness_app.run("What does a.txt say?").text == "a.txt says alpha"


@pytest.mark.eval("scripted")
def test_scripted(harness_app, scripted_provider, workspace):
    workspace.write("a.txt", "alpha")
    scripted_provider.add(tool_call("read", path="a.txt"), "a.txt says alpha")
    assert harness_app.run("What does a.txt say?").text == "a.txt says alpha"
"""


def _sources(report: Path) -> dict[tuple[str, str], tuple[str, bool]]:
    return {
        (row.scenario, row.provider): (row.source.value, row.tokens_synthetic)
        for row in load_report(report).rows
    }


@pytest.mark.deep
def test_rows_recorded_against_the_simulator_say_simulator_replayed_or_not(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    pytester.makepyfile(test_evals=EVALS)
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    recorded, replayed = pytester.path / "recorded.json", pytester.path / "replayed.json"
    record = ("--record-mode", "once", "--harness-base-url", server.url)

    pytester.runpytest(*record, "--harness-report", str(recorded)).assert_outcomes(passed=3)
    server.stop()
    pytester.runpytest("--harness-report", str(replayed)).assert_outcomes(passed=3)

    expected = {
        ("recorded", "openai"): ("simulator", True),
        ("recorded", "anthropic"): ("simulator", True),
        ("scripted", "scripted"): ("scripted", True),
    }
    # A replay's source is where its cassette was recorded, not "replay".
    assert _sources(recorded) == _sources(replayed) == expected
    table = render_table(load_report(replayed)).splitlines()
    cells = {(line.split()[0], line.split()[2]) for line in table[2:5]}
    assert cells == {("recorded", "simulator"), ("scripted", "scripted")}
    assert all(line.split()[7].endswith("*") for line in table[2:5])
    assert table[-1].startswith("* synthetic tokens")


@pytest.mark.deep
def test_a_cassette_from_a_local_server_that_is_not_the_simulator_is_unknown(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    pytester.makepyfile(test_evals=EVALS)
    server: SimulatorServer = sim_server(SIM_SCRIPT)
    pytester.runpytest("--record-mode", "once", "--harness-base-url", server.url, "-k", "openai")
    cassette = next((pytester.path / "cassettes" / "openai").rglob("*.yaml"))
    # The same bytes, minus the simulator's mark: harness cannot vouch for the server.
    text = cassette.read_text("utf-8").replace(" (harness simulator)", "")
    cassette.write_text(text, "utf-8")
    report = pytester.path / "report.json"
    pytester.runpytest("-k", "openai", "--harness-report", str(report)).assert_outcomes(passed=1)
    (row,) = load_report(report).rows
    assert (row.source, row.tokens_synthetic) == (Source.UNKNOWN, False)


def test_a_rows_source_is_the_header_the_cassette_layer_parsed(
    sim_server: Any, tmp_path: Path
) -> None:
    from harness.testing.plugin.fixtures import _source_of

    server: SimulatorServer = sim_server({"version": 1, "turns": ["pong"]})
    cassette = tmp_path / "ping.yaml"
    with (
        openai.OpenAI(api_key="sk-test", base_url=f"{server.url}/v1", max_retries=0) as client,
        harness.recording.use_cassette(cassette, record_mode="once") as handle,
    ):
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "ping"}]
        )
    assert _source_of(cassette, handle) == "simulator"
    cassette.unlink()
    # Gone from disk: the block the session saved still says where it came from,
    # while reading the file again has nothing to go on.
    assert _source_of(cassette, handle) == "simulator"
    assert _source_of(cassette) == "unknown"
