"""An eval of a Node agent: ``agent.mjs`` runs as its own process, through ``llm_proxy``.

The proxy is language-neutral: the Node ``openai`` client reads
``OPENAI_BASE_URL`` from ``llm_proxy.env`` and its model calls are recorded
and replayed outside the test's process. The release code exists only in the
workspace file, so an answer holding it means the agent read the file.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import examples.node_agent
from harness.testing import LLMProxy, assert_requests, system_sha256

AGENT = Path(examples.node_agent.__file__).with_name("agent.mjs")
CODE = "RELEASE-CODE-N0D3"
SYSTEM = "Answer from the workspace files; read them first."
READ_FILE = {
    "type": "object",
    "properties": {"path": {"type": "string"}},
    "required": ["path"],
}

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(
        not (AGENT.parent / "node_modules" / "openai").is_dir(),
        reason="the openai npm package is not installed: npm ci --prefix examples/node_agent",
    ),
]


@pytest.mark.eval("node-agent")
def test_the_node_agent_reads_the_release_code(llm_proxy: LLMProxy, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(f"The release code is {CODE}.\n")

    done = subprocess.run(
        ["node", str(AGENT), str(tmp_path), "What is the release code?"],
        env=llm_proxy.env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert CODE in done.stdout
    calls = llm_proxy.tool_calls()
    assert [(c.name, c.arguments) for c in calls] == [("read_file", {"path": "notes.txt"})]
    assert CODE in (calls[0].result or "")  # the agent sent the file back to the model
    # What the agent sent: its model, no reasoning effort, its system prompt, its
    # one tool's schema, and a history that only grows (each request repeats the one before).
    checks = assert_requests(llm_proxy).model("gpt-4.1-mini").effort(None).stable_prefix()
    checks.system_sha256(system_sha256(SYSTEM)).tools({"read_file": READ_FILE})
