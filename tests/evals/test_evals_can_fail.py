"""The scenario evals can fail: every runtime breakage fails its eval, by behaviour.

The repo's ``evals/``, ``fixtures/`` and ``cassettes/`` are copied into a pytester
project whose ``conftest.py`` breaks one property (``breakages.py``). Each
breakage must fail its scenario three ways:

- replaying the committed cassettes (the cassette may miss; the row fails);
- re-recorded against the simulator with the breakage in place, as a replay-miss
  hint would suggest, where no cassette can miss: the row fails with the eval's
  own behaviour message;
- for a flagship breakage of each scenario, replaying that fresh recording with
  the breakage still in place: the same message.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest
from breakages import BREAKAGES, Breakage
from google import genai

import harness.app
import harness.recording
import harness.subagent
import harness.testing.assertions.trace_assertions
import harness.tools.builtin
import harness.wires.anthropic.provider
import harness.wires.gemini.provider
import harness.wires.openai.provider
import harness.wires.openai_responses.provider
from harness.core.wires import runtime_wires
from harness.evals import EvalRow, Verdict, load_cases, load_report
from harness.simulator import SimulatorServer

# pytester's in-process runs drop the modules a run imported once it ends: keep
# these loaded, so that each run does not import (and assertion-rewrite) them anew.
PRELOADED = (
    anthropic,
    genai,
    openai,
    harness.app,
    harness.wires.anthropic.provider,
    harness.wires.openai.provider,
    harness.wires.openai_responses.provider,
    harness.recording,
    harness.subagent,
    harness.testing.assertions.trace_assertions,
    harness.tools.builtin,
    harness.wires.gemini.provider,
)

ROOT = Path(__file__).resolve().parents[2]
PROVIDERS = tuple(w.name for w in runtime_wires())  # every row the evals parametrize
MISS = "request not found in cassette"


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorServer]:
    """The simulator on the scenario script, as the recording command runs it."""
    with SimulatorServer(ROOT / "fixtures" / "sim" / "evals.yaml") as server:
        yield server


@pytest.fixture
def evals_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A copy of the repo's evals with their fixtures, cassettes and golden shapes."""
    for folder in ("evals", "fixtures", "cassettes"):
        shutil.copytree(
            ROOT / folder, pytester.path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return pytester


def run_evals(project: pytest.Pytester, *args: str) -> dict[tuple[str, str], EvalRow]:
    """Run evals in process; the report rows by (scenario, provider)."""
    report = project.path / "report.json"
    report.unlink(missing_ok=True)
    project.runpytest(
        # the outer run may hold modules of the same basename (this repo's evals)
        "--import-mode=importlib",
        "-p",
        "no:randomly",
        "--harness-report",
        str(report),
        *args,
    )
    return {(row.scenario, row.provider): row for row in load_report(report).rows}


def _failed(rows: dict[tuple[str, str], EvalRow], breakage: Breakage) -> dict[str, str]:
    """The failure message of each row the breakage must fail; every other row passed."""
    messages = {}
    for (scenario, provider), row in rows.items():
        label = f"{breakage.id}: {scenario} [{provider}]"
        if scenario in breakage.fails:
            assert row.verdict in (Verdict.FAIL, Verdict.ERROR), f"{label} passed"
            messages[f"{scenario} [{provider}]"] = row.message
        else:
            assert row.verdict is Verdict.PASS, f"{label}: {row.message}"
    expected = {f"{s} [{p}]" for s in breakage.fails for p in PROVIDERS}
    assert set(messages) == expected, f"{breakage.id}: rows {sorted(messages)}"
    return messages


# The default run breaks the runtime the flagship ways (one or more per scenario);
# the deep tier (--deep) every way.
@pytest.mark.deep
@pytest.mark.parametrize(
    "breakage",
    [pytest.param(b, marks=() if b.flagship else pytest.mark.deep) for b in BREAKAGES],
    ids=[b.id for b in BREAKAGES],
)
def test_a_breakage_fails_its_eval_by_behaviour(
    evals_project: pytest.Pytester, sim: SimulatorServer, breakage: Breakage
) -> None:
    evals_project.makeconftest(breakage.conftest)
    _failed(run_evals(evals_project, *breakage.files), breakage)

    fresh = evals_project.path / "recorded"
    record = ("--record-mode", "rewrite", "--harness-base-url", sim.url, "--update-shapes")
    recorded = run_evals(
        evals_project, *breakage.files, *record, "--harness-cassette-dir", str(fresh)
    )
    _assert_behaviour(_failed(recorded, breakage), breakage, "recorded against the simulator")
    assert list(fresh.rglob("*.yaml")), f"{breakage.id}: nothing was recorded"
    if breakage.flagship:
        replayed = run_evals(evals_project, *breakage.files, "--harness-cassette-dir", str(fresh))
        _assert_behaviour(_failed(replayed, breakage), breakage, "replaying its own recording")


def _assert_behaviour(messages: dict[str, str], breakage: Breakage, how: str) -> None:
    for label, message in messages.items():
        assert MISS not in message and breakage.behaviour in message, (
            f"{breakage.id}: {how}, {label} failed with {message!r}"
        )


def test_every_scenario_has_three_breakages() -> None:
    scenarios = ("subagent", "edit", "approval[approve]", "approval[reject]", "policy")
    scenarios += ("concurrent", "max_steps")
    counts = {s: sum(s in b.fails for b in BREAKAGES) for s in scenarios}
    assert min(counts.values()) >= 3, counts
    flagships = {s for b in BREAKAGES if b.flagship for s in b.fails}
    assert flagships == set(scenarios)


# In the default run the flagship breakages stand in for this control: they replay
# and re-record every scenario file, and every row their breakage must not fail passes.
@pytest.mark.deep
def test_the_unbroken_suite_passes_replayed_and_re_recorded(
    evals_project: pytest.Pytester, sim: SimulatorServer
) -> None:
    """The control: without a breakage, every eval passes both ways."""
    replayed = run_evals(evals_project, "evals")
    fresh = evals_project.path / "recorded"
    recorded = run_evals(
        evals_project,
        "evals",
        "--record-mode",
        "rewrite",
        "--harness-base-url",
        sim.url,
        "--harness-cassette-dir",
        str(fresh),
    )
    cases = len(load_cases(ROOT / "evals" / "cases"))
    for rows in (replayed, recorded):
        # seven scenario rows (approval's two included), then the cases, per provider
        assert len(rows) == (7 + cases) * len(PROVIDERS)
        assert {row.verdict for row in rows.values()} == {Verdict.PASS}, {
            key: row.message for key, row in rows.items() if row.verdict is not Verdict.PASS
        }


def test_a_replay_miss_row_says_what_changed(evals_project: pytest.Pytester) -> None:
    edit_tool_disabled = """
import pytest


@pytest.fixture
def make_harness_app(make_harness_app):
    def make(**overrides):
        tools = tuple(t for t in overrides.get("enabled_tools", ()) if t != "edit")
        return make_harness_app(**{**overrides, "enabled_tools": tools})

    return make
"""
    evals_project.makeconftest(edit_tool_disabled)
    rows = run_evals(evals_project, "evals/test_edit_flow.py", "--harness-provider", "openai")
    message = rows[("edit", "openai")].message
    assert MISS in message and "Nearest recorded request" in message and "'name': 'edit'" in message
