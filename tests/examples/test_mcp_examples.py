"""The MCP examples (examples/mcp_runtime, examples/mcp_agents) replay offline and kill
their mutants, through the CLI as CI runs them.

Replay only, with ``--harness-block-live``: no MCP server process is started
(the server file is not even reachable under the copied tree's name), and the
model is served from the cassettes recorded against ``harness sim serve``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.evals import MutantStatus, load_report, summarize_mutants

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "examples" / "cassettes"
EVALS = ("mcp-runtime", "mcp-stdio", "mcp-http")
# Each example folder by itself: the eval's pytest then imports only that example's
# SDKs, not every framework under examples/ (about half the process's time).
FOLDERS = {"mcp_runtime": ("mcp-runtime",), "mcp_agents": ("mcp-stdio", "mcp-http")}


def _eval(report: Path, *args: str, folder: str | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    where = ("--evals-dir", f"examples/{folder}") if folder else ("--evals-dir", "examples")
    chosen = () if folder else ("-k", "mcp_runtime or mcp_agents")
    command = [
        *(sys.executable, "-m", "harness", "eval", *where, *chosen),
        *("--harness-cassette-dir", str(CASSETTES), "--report", str(report)),
        *("-p", "no:randomly", "--harness-block-live"),
        *args,
    ]
    return subprocess.run(
        command,
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


# The default run replays the runtime example; the deep tier the agents' too.
@pytest.mark.parametrize(
    "folder", ["mcp_runtime", pytest.param("mcp_agents", marks=pytest.mark.deep)]
)
def test_the_mcp_examples_replay_with_no_server_process(tmp_path: Path, folder: str) -> None:
    report = tmp_path / "report.json"
    done = _eval(report, folder=folder)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    rows = load_report(report).rows
    assert sorted(r.scenario for r in rows) == sorted(FOLDERS[folder])
    assert all(r.verdict.value == "pass" for r in rows), [(r.scenario, r.verdict) for r in rows]
    assert all(r.mcp_calls == {"files": 1} for r in rows), [r.mcp_calls for r in rows]


@pytest.mark.deep
def test_the_mcp_examples_kill_at_least_80_percent_of_their_mutants(tmp_path: Path) -> None:
    report = tmp_path / "mutants.json"
    done = _eval(report, "--mutants")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summaries = summarize_mutants(load_report(report).mutants)
    assert sorted(s.scenario for s in summaries) == sorted(EVALS)
    for summary in summaries:
        assert summary.status is MutantStatus.OK, summary
        assert summary.kill_rate >= 0.8, (summary.scenario, summary.kill_rate)
        kinds = {r.operator for r in summary.tools}
        assert kinds == {"empty_result", "error_result", "truncated_result"}, summary.scenario
        assert not summary.errors, summary.errors
