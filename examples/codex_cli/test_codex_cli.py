"""An eval of the OpenAI Codex CLI as an agent, through ``llm_proxy``.

``codex exec`` runs as its own process with a fresh ``CODEX_HOME`` whose
config names one model provider: the proxy, on the Responses wire. (Codex
ignores ``OPENAI_BASE_URL`` alone.) The ``codex`` profile pins what changes on
every run (ids, cache key, date, working folder, the timing lines of tool
output), so the cassette replays and re-records byte-identically. The release
code exists only in the workspace file: an answer holding it means Codex ran
the command that read it.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import examples.codex_cli
from harness.testing import LLMProxy, assert_requests

CODEX = Path(examples.codex_cli.__file__).with_name("node_modules") / ".bin" / "codex"
CODE = "RELEASE-CODE-C0D3X"
MODEL = "gpt-5.5"
PROMPT = "What is the release code in notes.txt?"
SANDBOX = ("--sandbox", "danger-full-access")
TOOLS = ["apply_patch", "create_goal", "exec_command", "get_goal", "request_user_input"]
TOOLS += ["tool_search", "update_goal", "view_image", "web_search", "write_stdin"]

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(
        not CODEX.exists(), reason="Codex is not installed: npm ci --prefix examples/codex_cli"
    ),
]


def codex_home(root: Path, base_url: str) -> Path:
    """A fresh CODEX_HOME whose only model provider is the proxy."""
    root.mkdir()
    (root / "config.toml").write_text(
        f'model = "{MODEL}"\n'
        'model_reasoning_effort = "medium"\n'
        'model_provider = "harness"\n'
        # The shell tool runs `bash -c`, not a login shell: a login shell's
        # profile scripts would print this machine's warnings into the tool output.
        "allow_login_shell = false\n"
        # Only model calls: no update check, no analytics events.
        "check_for_update_on_startup = false\n"
        "\n"
        "[analytics]\n"
        "enabled = false\n"
        "\n"
        "[model_providers.harness]\n"
        'name = "harness proxy"\n'
        f"base_url = {json.dumps(base_url)}\n"
        # The key variable the provider reads: a dummy under llm_proxy.env when
        # replaying or simulating, your own key when recording against the real API.
        'env_key = "OPENAI_API_KEY"\n'
        'wire_api = "responses"\n'
    )
    return root


@pytest.mark.eval("codex-cli")
@pytest.mark.llm_cassette(profile="codex")
def test_codex_reads_the_release_code(llm_proxy: LLMProxy, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"The release code is {CODE}.\n")
    env = llm_proxy.env | {
        "CODEX_HOME": str(codex_home(tmp_path / "codex_home", llm_proxy.base_url("openai"))),
        "HOME": str(tmp_path),  # nothing written to the real home
        "TZ": "UTC",  # Codex states the time zone in its context
    }

    done = subprocess.run(
        # No Codex sandbox: on Linux it mounts a fresh /dev, which hides a workspace
        # under /dev/shm, where `harness eval` keeps its scratch. The commands are the
        # cassette's; under llm_proxy the process reaches only the proxy.
        [str(CODEX), "exec", "--json", "--ephemeral", "--skip-git-repo-check", *SANDBOX, PROMPT],
        cwd=workspace,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert done.returncode == 0, done.stderr[-2000:]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    answers = [
        e["item"]["text"]
        for e in events
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]
    assert answers and CODE in answers[-1], done.stdout[-2000:]
    calls = llm_proxy.tool_calls()
    assert [c.name for c in calls] == ["exec_command"]
    assert "cat notes.txt" in calls[0].arguments["cmd"]
    assert CODE in (calls[0].result or "")  # Codex sent the command's output back
    # What Codex sent: the model and effort configured, the tools of this Codex
    # version, and a history that only grows (each request repeats the one before).
    checks = assert_requests(llm_proxy).model(MODEL).effort("medium").stable_prefix()
    checks.tools(TOOLS)
