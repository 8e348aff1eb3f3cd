"""MCP cassettes under the pytest plugin: ``make_harness_app(mcp_servers=...)`` records
the servers' JSON-RPC once and replays it with no server process.

The inner runs are subprocesses (``runpytest_subprocess``): the SDK's anyio and
httpx2 modules would otherwise be loaded, dropped and loaded again by pytester.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.mcp.servers import SERVER, new_tag, processes_with

pytest.importorskip("mcp")

AGENT = """
import os
import sys
from pathlib import Path

import pytest

from harness.providers._scripted import ScriptedProvider, tool_call

SERVER = Path(__file__).with_name("server_app.py")


@pytest.mark.eval
def test_agent(make_harness_app):
    b = int(os.environ.get("ADD_B", "3"))
    provider = ScriptedProvider([tool_call("t__add", a=2, b=b), tool_call("t__secret"), "ok"])
    args = [str(SERVER), "stdio", os.environ["TAG"]]
    servers = {"mcpServers": {"t": {"command": sys.executable, "args": args, "approval": "never"}}}
    app = make_harness_app(provider=provider, mcp_servers=servers)
    assert app.run("go").text == "ok"
    seen = [m.content for m in provider.requests[-1].messages if m.role.value == "tool"]
    print("OBSERVED", seen[0], "scrubbed" if seen[1] == "token <scrubbed>" else "as served")
    assert seen[0] == os.environ.get("EXPECT", str(2 + b))
"""

CASSETTE = Path("cassettes") / "mcp" / "test_agent" / "test_agent.mcp.json"


def _project(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_agent=AGENT)
    shutil.copy(SERVER, pytester.path / "server_app.py")


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:randomly", "-s", *args)


@pytest.mark.deep
def test_record_once_then_replay_with_the_server_gone_and_live_calls_blocked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = new_tag()
    monkeypatch.setenv("TAG", tag)
    _project(pytester)
    _run(pytester, "--record-mode=once").assert_outcomes(passed=1)
    cassette = pytester.path / CASSETTE
    data = json.loads(cassette.read_text())
    assert data["format"] == "harness-mcp-cassette"
    methods = [e["method"] for e in data["servers"]["t"]["exchanges"]]
    assert methods == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "tools/call",
    ]
    text = cassette.read_text()
    assert "sk-proj-" not in text, "the secret in a tool result is scrubbed"
    assert "token <scrubbed>" in text
    (pytester.path / "server_app.py").unlink()  # the server is gone
    replay = _run(pytester, "--harness-block-live", "--harness-report", "report.json")
    replay.assert_outcomes(passed=1)
    (row,) = json.loads((pytester.path / "report.json").read_text())["rows"]
    assert row["mcp_calls"] == {"t": 2}, "the row counts MCP calls by server"
    replay.stdout.fnmatch_lines(["*OBSERVED 5 scrubbed*"])
    assert processes_with(tag) == []
    check = pytester.run("harness", "cassettes", "check", str(cassette.parent))
    assert check.ret == 0, check.stdout.str()


@pytest.mark.deep
def test_a_moved_request_is_a_miss_naming_the_nearest_recorded_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAG", new_tag())
    _project(pytester)
    _run(pytester, "--record-mode=once").assert_outcomes(passed=1)
    monkeypatch.setenv("ADD_B", "4")
    monkeypatch.setenv("EXPECT", "miss")
    result = _run(pytester)
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*has no answer for server 't': tools/call 'add' {\"a\": 2, \"b\": 4}*",
            '*nearest recorded: tools/call \'add\' {"a": 2, "b": 3}*',
            "*differs at params.arguments.b: recorded 3, now 4*",
        ]
    )


def test_replaying_with_no_cassette_says_how_to_record(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = new_tag()
    monkeypatch.setenv("TAG", tag)
    _project(pytester)
    # In process: the run fails before the SDK is imported, so nothing is loaded twice.
    result = pytester.runpytest("-p", "no:randomly", "--harness-block-live")
    result.assert_outcomes(errors=0, failed=1)
    result.stdout.fnmatch_lines(["*no MCP cassette at *test_agent.mcp.json; record it once*"])
    assert processes_with(tag) == [], "a replay never starts the server"
