"""An eval of harness's own runtime with a filesystem MCP server (stdio).

``make_harness_app(mcp_servers=...)`` records the server's JSON-RPC beside the
model's cassette (``<test>.mcp.json``) and replays it with no server process.
Recorded once against the simulator (``examples/mcp_runtime/sim.yaml``)::

    harness sim serve --script examples/mcp_runtime/sim.yaml --port 18766 &
    pytest examples/mcp_runtime --record-mode=once \\
        --harness-cassette-dir examples/cassettes --harness-base-url http://127.0.0.1:18766

The eval checks the call, what the tool answered and the answer: a replayed
model answers as recorded whatever the tool said, so only a check on the tool's
answer kills the tool-result mutants of ``--mutants``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harness import Application

SERVER = Path(__file__).resolve().parents[1] / "mcp_files" / "server.py"
CODE = "RELEASE-CODE-5ZRA"
NOTE = f"The release code is {CODE}.\n"


@pytest.mark.eval("mcp-runtime")
@pytest.mark.parametrize("provider_name", ["openai"])
def test_reads_the_code_through_mcp(
    make_harness_app: Callable[..., Application], tmp_path: Path, provider_name: str
) -> None:
    (tmp_path / "notes.txt").write_text(NOTE)
    args = [str(SERVER), "stdio", str(tmp_path)]
    servers: dict[str, Any] = {
        "files": {"command": sys.executable, "args": args, "approval": "never"}
    }
    app = make_harness_app(mcp_servers=servers)
    result = app.run("What is the release code?")
    sent = app.provider.inner.requests  # make_harness_app logs what was sent
    tools = [m for m in sent[-1].messages if m.role.value == "tool"]
    assert [c.name for m in sent[-1].messages for c in m.tool_calls] == ["files__read_file"]
    assert [m.content for m in tools] == [NOTE], "the tool read the whole note"
    assert CODE in result.text
