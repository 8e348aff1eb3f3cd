"""The scenario evals can fail: each breakage fails its own eval, and only that one.

The repo's ``evals/``, ``fixtures/`` and ``cassettes/`` are copied into a pytester
project whose ``conftest.py`` breaks one thing; the evals then replay the
committed cassettes and the eval report must say which scenario broke and why.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import anthropic
import openai
import pytest

import harness.app
import harness.providers.anthropic_messages
import harness.providers.openai_chat
import harness.recording
import harness.subagent
import harness.testing.trace_assertions
import harness.tools.builtin
from harness.evals import EvalRow, Verdict, load_report

# pytester's in-process runs drop the modules a run imported once it ends: keep
# these loaded, so that each run does not import (and assertion-rewrite) them anew.
PRELOADED = (
    anthropic,
    openai,
    harness.app,
    harness.providers.anthropic_messages,
    harness.providers.openai_chat,
    harness.recording,
    harness.subagent,
    harness.testing.trace_assertions,
    harness.tools.builtin,
)

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ("approval[approve]", "approval[reject]", "edit", "subagent")
MISS = "request not found in cassette"

EDIT_TOOL_DISABLED = """
import pytest


@pytest.fixture
def make_harness_app(make_harness_app):
    def make(**overrides):
        tools = tuple(t for t in overrides.get("enabled_tools", ()) if t != "edit")
        return make_harness_app(**{**overrides, "enabled_tools": tools})

    return make
"""

EXPLORE_RETURNS_THE_RAW_TRANSCRIPT = """
import pytest

from harness.subagent.tool import ExplorerSubagentTool
from harness.tools.protocol import ToolOutput


@pytest.fixture(autouse=True)
def explore_returns_the_raw_transcript(monkeypatch):
    real_run = ExplorerSubagentTool.run

    def leaky_run(self, tool_input):
        real_run(self, tool_input)  # the child still reads the files ...
        files = sorted(p for p in tool_input.workdir.rglob("*") if p.is_file())
        # ... but the parent gets their raw text instead of the child's report
        return ToolOutput("\\n".join(f"--- {p.name}\\n{p.read_text()}" for p in files))

    monkeypatch.setattr(ExplorerSubagentTool, "run", leaky_run)
"""

APPROVAL_OFF = """
import pytest


@pytest.fixture
def make_harness_app(make_harness_app):
    def make(**overrides):
        return make_harness_app(**{**overrides, "approval_provider": "off"})

    return make
"""


@pytest.fixture
def evals_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """A copy of the repo's evals with their fixtures, cassettes and golden shapes."""
    for folder in ("evals", "fixtures", "cassettes"):
        shutil.copytree(
            ROOT / folder, pytester.path / folder, ignore=shutil.ignore_patterns("__pycache__")
        )
    return pytester


def run_evals(project: pytest.Pytester, *args: str) -> dict[tuple[str, str], EvalRow]:
    """Replay the evals in process; the report rows by (scenario, provider)."""
    report = project.path / "report.json"
    project.runpytest(
        # the outer run may hold modules of the same basename (this repo's evals)
        "--import-mode=importlib",
        "evals",
        "--harness-report",
        str(report),
        *args,
    )
    return {(row.scenario, row.provider): row for row in load_report(report).rows}


@pytest.mark.parametrize(
    ("conftest", "expected"),
    [
        pytest.param(
            EDIT_TOOL_DISABLED,
            {"edit": (MISS, "evals/test_edit_flow/test_edit_flow.yaml")},
            id="edit-tool-disabled",
        ),
        pytest.param(
            EXPLORE_RETURNS_THE_RAW_TRANSCRIPT,
            {"subagent": (MISS, "evals/test_subagent_flow/test_subagent_flow.yaml")},
            id="explore-returns-raw-transcript",
        ),
        pytest.param(
            APPROVAL_OFF,
            {
                "approval[approve]": ("verdict: the write was not paused for approval",),
                "approval[reject]": (MISS, "test_approval_flow-reject.yaml"),
            },
            id="approval-middleware-off",
        ),
    ],
)
def test_a_breakage_fails_its_eval_and_only_that_one(
    evals_project: pytest.Pytester, conftest: str, expected: dict[str, tuple[str, ...]]
) -> None:
    evals_project.makeconftest(conftest)
    rows = run_evals(evals_project)
    assert sorted(rows) == sorted((s, p) for s in SCENARIOS for p in ("anthropic", "openai"))
    for (scenario, provider), row in rows.items():
        if scenario not in expected:
            assert row.verdict is Verdict.PASS, f"{scenario} [{provider}]: {row.message}"
            continue
        assert row.verdict in (Verdict.FAIL, Verdict.ERROR), f"{scenario} [{provider}] passed"
        for fragment in expected[scenario]:
            assert fragment in row.message, f"{scenario} [{provider}]: {row.message}"


def test_a_replay_miss_row_says_what_changed(evals_project: pytest.Pytester) -> None:
    evals_project.makeconftest(EDIT_TOOL_DISABLED)
    rows = run_evals(evals_project, "-k", "edit", "--harness-provider", "openai")
    message = rows[("edit", "openai")].message
    assert "Nearest recorded request" in message and "'name': 'edit'" in message
