"""The Anthropic tool-runner and LangChain ``create_agent`` recipes replay offline and kill
their response mutants, through the CLI as CI runs them (``--harness-block-live``: a
request no cassette answers fails the run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.evals import MutantStatus, load_report, summarize_mutants

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "examples" / "cassettes"
EVALS = ("anthropic-tool-runner[plain]", "anthropic-tool-runner[stream]", "langchain-agent")
# Each recipe folder by itself: the eval's pytest then imports only that recipe's
# SDKs, not every framework under examples/ (about half the process's time).
FOLDERS = {
    "anthropic_tool_runner": ("anthropic-tool-runner[plain]", "anthropic-tool-runner[stream]"),
    "langchain_agent": ("langchain-agent",),
}


def _eval(report: Path, *args: str, folder: str | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "ANTHROPIC_"))}
    where = ("--evals-dir", f"examples/{folder}") if folder else ("--evals-dir", "examples")
    chosen = () if folder else ("-k", "anthropic_tool_runner or langchain_agent")
    command = [
        *(sys.executable, "-m", "harness", "eval", *where, *chosen),
        *("--harness-cassette-dir", str(CASSETTES), "--report", str(report)),
        *("-p", "no:randomly", "--harness-block-live", *args),
    ]
    return subprocess.run(
        command, cwd=ROOT, env=clean, capture_output=True, text=True, timeout=600, check=False
    )


# The default run replays the tool-runner recipe (plain and streamed); the deep tier
# LangChain's too.
@pytest.mark.parametrize(
    "folder", ["anthropic_tool_runner", pytest.param("langchain_agent", marks=pytest.mark.deep)]
)
def test_the_runner_recipes_replay_offline_with_one_tool_call_each(
    tmp_path: Path, folder: str
) -> None:
    report = tmp_path / "report.json"
    done = _eval(report, folder=folder)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    rows = load_report(report).rows
    assert sorted(r.scenario for r in rows) == sorted(FOLDERS[folder])
    assert all(r.verdict.value == "pass" for r in rows), [(r.scenario, r.verdict) for r in rows]
    assert all((r.llm_calls, r.tool_calls) == (2, 1) for r in rows), rows


@pytest.mark.deep
def test_the_runner_recipes_kill_at_least_80_percent_of_their_mutants(tmp_path: Path) -> None:
    report = tmp_path / "mutants.json"
    done = _eval(report, "--mutants")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summaries = summarize_mutants(load_report(report).mutants)
    assert sorted(s.scenario for s in summaries) == sorted(EVALS)
    for summary in summaries:
        assert summary.status is MutantStatus.OK, summary
        assert summary.kill_rate >= 0.8, (summary.scenario, summary.kill_rate)
        assert not summary.errors, summary.errors
