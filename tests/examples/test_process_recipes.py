"""The recipes for agents that run as their own process (a Node script, the Codex CLI,
Claude Code when claude-agent-sdk is installed):
they replay offline through ``llm_proxy`` as CI runs them, re-record byte-identically
against the simulator, kill their response mutants; and the two harness fixes they
needed (``assert_requests`` on an ``llm_proxy``, the ``codex`` profile's paths)."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from harness.evals import MutantStatus, load_report, summarize_mutants
from harness.proxy import normaliser_for
from harness.testing import LLMProxy, RequestAssertionError, assert_requests

ROOT = Path(__file__).resolve().parents[2]
CASSETTES = ROOT / "examples" / "cassettes"
RECIPES = {  # eval name -> (-k expression, the npm folder it needs)
    "node-agent": ("node_agent", ROOT / "examples" / "node_agent" / "node_modules" / "openai"),
    "codex-cli": ("codex_cli", ROOT / "examples" / "codex_cli" / "node_modules" / ".bin" / "codex"),
}
# One simulated model for all three recipes: each rule answers one agent's tool.
SIM_SCRIPT = {
    "version": 1,
    "rules": [
        *(
            {"when": {"tools_include": tool, "has_tool_results": False}, "reply": reply}
            for tool, reply in (
                (
                    "read_file",
                    {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}]},
                ),
                (
                    "exec_command",
                    {
                        "tool_calls": [
                            {"name": "exec_command", "arguments": {"cmd": "cat notes.txt"}}
                        ]
                    },
                ),
                (
                    "Bash",
                    {"tool_calls": [{"name": "Bash", "arguments": {"command": "cat notes.txt"}}]},
                ),
            )
        ),
        {
            "fill": "RELEASE-CODE-[A-Z0-9]+",
            "when": {"last_tool_result_contains": "RELEASE-CODE"},
            "reply": "The release code is {match}.",
        },
    ],
}


def _installed() -> dict[str, str]:
    """The recipes whose CLI is installed, by eval name -> -k expression."""
    found = {}
    if shutil.which("node") is not None:
        found = {name: k for name, (k, needs) in RECIPES.items() if needs.exists()}
    if importlib.util.find_spec("claude_agent_sdk") is not None:
        found["claude-code"] = "claude_code"
    return found


def _eval(report: Path, cassettes: Path, *args: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    command = [
        *(sys.executable, "-m", "harness", "eval", "--evals-dir", "examples"),
        *("--harness-cassette-dir", str(cassettes), "--report", str(report)),
        *("-k", " or ".join(_installed().values()), "-p", "no:randomly", *args),
    ]
    return subprocess.run(
        command, cwd=ROOT, env=clean, capture_output=True, text=True, timeout=900, check=False
    )


@pytest.fixture
def installed() -> dict[str, str]:
    found = _installed()
    if not found:
        pytest.skip("no recipe installed: npm ci --prefix examples/node_agent (or codex_cli)")
    return found


def test_the_codex_profile_pins_the_workspace_and_skill_roots() -> None:
    # Both are per-test paths (tmp_path, a fresh CODEX_HOME): unpinned, no replay matched.
    text = (
        "<workspace_roots><root>/tmp/pytest-of-me/pytest-7/test_a0/workspace</root>"
        "</workspace_roots>\n### Skill roots\n- `r0` = `/tmp/pytest-of-me/pytest-7/"
        "test_a0/codex_home/skills/.system`\n### Available skills"
    )
    body = json.dumps({"input": [{"content": text}]}).encode()
    pinned = json.loads(normaliser_for(["codex"]).body(body))["input"][0]["content"]
    assert pinned == (
        "<workspace_roots><root><workdir></root></workspace_roots>\n### Skill roots\n"
        "- `r0` = `<skill-root>`\n### Available skills"
    )


def test_the_claude_code_profile_pins_its_environment_reminder() -> None:
    # The folder and the kernel differ between machines, the budget with the prompt's
    # length: unpinned, a cassette recorded on one machine did not replay on another.
    text = (
        "You have been invoked in the following environment: \n"
        " - Primary working directory: /dev/shm/harness-eval-x1/runs/test_a0/workspace\n"
        " - Is a git repository: false\n - OS Version: Linux 6.18.44-fc-v1147\n"
        "<total_tokens>14985302 tokens left</total_tokens>"
    )
    body = json.dumps({"messages": [{"content": text}]}).encode()
    pinned = json.loads(normaliser_for(["claude-code"]).body(body))["messages"][0]["content"]
    assert pinned == (
        "You have been invoked in the following environment: \n"
        " - Primary working directory: <workdir>\n"
        " - Is a git repository: false\n - OS Version: <os-version>\n"
        "<total_tokens><n> tokens left</total_tokens>"
    )


def test_assert_requests_reads_an_llm_proxy(tmp_path: Path) -> None:
    # Before the proxy started it has sent nothing: the checks say so, where they used
    # to raise from the in-process cassette handle an llm_proxy does not have.
    proxy = LLMProxy(tmp_path / "c.yaml", "none", log_path=tmp_path / "proxy.log")
    with pytest.raises(RequestAssertionError, match="no model request was sent"):
        assert_requests(proxy)


@pytest.mark.deep
def test_the_recipes_replay_offline_through_the_proxy(
    installed: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "report.json"
    done = _eval(report, CASSETTES, "--harness-block-live")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    rows = load_report(report).rows
    assert sorted(r.scenario for r in rows) == sorted(installed)
    assert all(r.verdict.value == "pass" for r in rows), [(r.scenario, r.verdict) for r in rows]
    assert all((r.llm_calls, r.tool_calls) == (2, 1) for r in rows), rows


@pytest.mark.deep
def test_the_recipes_kill_at_least_80_percent_of_their_mutants(
    installed: dict[str, str], tmp_path: Path
) -> None:
    report = tmp_path / "mutants.json"
    done = _eval(report, CASSETTES, "--harness-block-live", "--mutants")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summaries = summarize_mutants(load_report(report).mutants)
    assert sorted(s.scenario for s in summaries) == sorted(installed)
    for summary in summaries:
        assert summary.status is MutantStatus.OK, summary
        assert summary.kill_rate >= 0.8, (summary.scenario, summary.kill_rate)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def simulator(tmp_path: Path) -> Iterator[str]:
    """``harness sim serve`` answering every recipe (each recipe's own script, merged)."""
    port = _free_port()
    (tmp_path / "sim.json").write_text(json.dumps(SIM_SCRIPT))
    script = ("--script", str(tmp_path / "sim.json"))
    with open(tmp_path / "sim.log", "wb") as log:
        process = subprocess.Popen(
            [*(sys.executable, "-m", "harness", "sim", "serve", "--port", str(port)), *script],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=30)


def _without_recorded_at(path: Path) -> str:
    return "".join(
        line for line in path.read_text("utf-8").splitlines(True) if "recorded_at:" not in line
    )


def _requests(path: Path) -> list[object]:
    return [i["request"] for i in yaml.safe_load(path.read_text("utf-8"))["interactions"]]


@pytest.mark.deep
def test_re_recording_against_the_simulator_gives_the_committed_cassettes(
    installed: dict[str, str], simulator: str, tmp_path: Path
) -> None:
    for run in ("first", "second"):
        cassettes = tmp_path / run
        done = _eval(
            tmp_path / f"{run}.json",
            cassettes,
            *("--record-mode", "once", "--harness-base-url", simulator),
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    for k in installed.values():
        committed = sorted((CASSETTES / "examples" / k).rglob("*.yaml"))
        assert committed, k
        for path in committed:
            relative = path.relative_to(CASSETTES)
            first, second = tmp_path / "first" / relative, tmp_path / "second" / relative
            assert _without_recorded_at(first) == _without_recorded_at(second), relative
            # What the agents sent, pinned by the profiles, is what they sent when the
            # committed files were recorded. (The simulator counts the tokens of each
            # request as sent, so the answers' token counts follow the length of the
            # scratch folder's path, which differs between machines.)
            assert _requests(first) == _requests(path), relative
