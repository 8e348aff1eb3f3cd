"""An eval of Claude Code as an agent, driven by the Claude Agent SDK, through ``llm_proxy``.

The SDK (PyPI ``claude-agent-sdk``) starts its bundled Claude Code binary as a
process of its own; the binary reads ``ANTHROPIC_BASE_URL`` and
``ANTHROPIC_API_KEY`` from ``llm_proxy.env``, and the ``claude-code`` profile
silences its non-essential traffic and pins what changes on every run (its
user id, the date and the working directory). The release code exists only in
the workspace file: an answer holding it means Claude Code ran the command
that read it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness.testing import LLMProxy

sdk = pytest.importorskip(
    "claude_agent_sdk", reason="claude-agent-sdk is not installed: pip install claude-agent-sdk"
)

CODE = "RELEASE-CODE-C1AUD3"
MODEL = "claude-sonnet-4-5"
PROMPT = "What is the release code in notes.txt? Use Bash to read it."


async def _ask(options: Any) -> list[Any]:
    return [message async for message in sdk.query(prompt=PROMPT, options=options)]


@pytest.mark.eval("claude-code")
@pytest.mark.llm_cassette(profile="claude-code")
def test_claude_code_reads_the_release_code(llm_proxy: LLMProxy, tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "notes.txt").write_text(f"The release code is {CODE}.\n")
    options = sdk.ClaudeAgentOptions(
        cwd=str(workspace),
        model=MODEL,
        allowed_tools=["Bash"],  # pre-approved: no permission prompt
        setting_sources=[],  # no user or project settings: the same run on every machine
        # A fresh config folder and home: nothing read from or written to yours.
        env=llm_proxy.env | {"HOME": str(tmp_path), "CLAUDE_CONFIG_DIR": str(tmp_path / "c")},
    )

    messages = asyncio.run(_ask(options))

    results = [m for m in messages if isinstance(m, sdk.ResultMessage)]
    assert results and not results[-1].is_error, messages[-3:]
    assert CODE in (results[-1].result or "")
    calls = llm_proxy.tool_calls()
    assert [c.name for c in calls] == ["Bash"]
    assert "cat notes.txt" in calls[0].arguments["command"]
    assert CODE in str(calls[0].result or "")  # Claude Code sent the command's output back
