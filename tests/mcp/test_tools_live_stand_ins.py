"""``--harness-tools live`` under ``mcp_cassette``: an agent on its own MCP client
runs the real servers, and a live answer unlike the recorded one is a named divergence.

Recorded once through the stand-ins (a real server over stdio and one over
streamable HTTP), then run live: unchanged, the tests pass; with the server's
answer changed, each fails with the server, the tool, the arguments and the
recorded against the live answer, whatever else the test asserts.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.mcp._cassette import McpCassette, McpExchange, McpServerTape, save_cassette
from harness.mcp._live import LiveComparer
from harness.mcp.replay import main
from tests.mcp.servers import SERVER, new_tag, processes_with, start_http_server

pytest.importorskip("mcp")

AGENT = """
import os
import sys
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

SERVER = Path(__file__).with_name("server_app.py")


async def _echo(streams):
    async with ClientSession(*streams) as session:
        await session.initialize()
        result = await session.call_tool("echo", {"text": "hi"})
        return result.content[0].text


def test_stdio(mcp_cassette):
    real = StdioServerParameters(
        command=sys.executable,
        args=[str(SERVER), "stdio", os.environ["TAG"]],
        env={"TEST_MARKER": os.environ["MARKER"]},
    )
    params = mcp_cassette.stdio("calc", real)

    async def main():
        async with stdio_client(params) as streams:
            return await _echo(streams)

    assert anyio.run(main).endswith(": hi")  # passes whatever the marker: the tool changed


def test_http(mcp_cassette):
    url = mcp_cassette.url("calc", os.environ["MCP_URL"])

    async def main():
        async with streamable_http_client(url) as streams:
            return await _echo(streams)

    assert anyio.run(main).endswith(": hi")
"""


def _run(pytester: pytest.Pytester, marker: str, *args: str) -> pytest.RunResult:
    """The agent's tests with the servers answering ``<marker>: hi``."""
    tag = new_tag()
    process, url = start_http_server(tag, {"TEST_MARKER": marker})
    try:
        with pytest.MonkeyPatch.context() as patch:
            for name, value in {"TAG": tag, "MARKER": marker, "MCP_URL": url}.items():
                patch.setenv(name, value)
            return pytester.runpytest_subprocess("-p", "no:randomly", *args)
    finally:
        process.kill()
        process.wait()
        assert processes_with(tag) == [], "the live stdio server is stopped with the test"


@pytest.fixture
def recorded(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makepyfile(test_agent=AGENT)
    shutil.copy(SERVER, pytester.path / "server_app.py")
    _run(pytester, "recorded", "--record-mode=once").assert_outcomes(passed=2)
    return pytester


@pytest.mark.deep
def test_unchanged_servers_run_live_and_pass(recorded: pytest.Pytester) -> None:
    result = _run(recorded, "recorded", "--harness-tools", "live", "--harness-report", "r.json")
    result.assert_outcomes(passed=2)
    assert "ToolDivergence" not in result.stdout.str()


@pytest.mark.deep
def test_a_changed_server_fails_with_the_named_divergence(recorded: pytest.Pytester) -> None:
    replayed = _run(recorded, "changed")
    replayed.assert_outcomes(passed=2)  # replay: the cassette answers, not the server
    result = _run(recorded, "changed", "--harness-tools", "live")
    result.assert_outcomes(failed=2)  # the tests' own asserts pass: the divergence fails them
    out = result.stdout.str()
    for test in ("test_stdio", "test_http"):
        section = out[out.index(f"_ {test} _") :]
        assert section.splitlines()[1].startswith(
            "ToolDivergence: MCP server 'calc', tool 'echo' answered differently"
        ), section
        assert '  arguments: {"text": "hi"}' in section
        assert "  recorded:  'recorded: hi'" in section
        assert "  live:      'changed: hi'" in section
        assert "    -recorded: hi" in section and "    +changed: hi" in section


def _tape(text: str) -> McpServerTape:
    params = {"name": "echo", "arguments": {"text": "hi"}}
    answer = {"content": [{"type": "text", "text": text}], "isError": False}
    call = McpExchange(method="tools/call", params=params, result=answer)
    return McpServerTape(transport="stdio", exchanges=[call])


def _call(comparer: LiveComparer, request_id: Any, result: dict[str, Any]) -> None:
    params = {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": 1}}
    comparer.client_sent(
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    )
    comparer.server_sent({"jsonrpc": "2.0", "id": request_id, "result": result})


@given(st.text(max_size=30), st.text(max_size=30), st.integers() | st.text(max_size=5))
def test_a_live_answer_differs_exactly_when_its_content_does(
    recorded: str, live: str, request_id: Any
) -> None:
    comparer = LiveComparer("calc", _tape(recorded))
    answer = {"content": [{"type": "text", "text": live}], "isError": False, "_meta": {"x": 1}}
    _call(comparer, request_id, answer)
    assert comparer.calls == 1
    if recorded == live:
        assert comparer.changes == []  # _meta is no part of the answer
    else:
        [change] = comparer.changes
        assert (change.server, change.tool, change.arguments) == ("calc", "echo", {"text": "hi"})
        assert (change.recorded, change.live) == (recorded, live)


def test_an_error_result_or_a_secret_is_shown_as_the_cassette_holds_it() -> None:
    comparer = LiveComparer("calc", _tape("fine"))
    key = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk"
    _call(comparer, 1, {"content": [{"type": "text", "text": f"broken {key}"}], "isError": True})
    [change] = comparer.changes
    assert change.recorded == "fine"
    assert change.live.startswith("[error] broken ") and key not in change.live
    assert "sk-proj" not in change.to_json()


def test_a_call_the_recording_never_answered_has_nothing_to_differ_from() -> None:
    comparer = LiveComparer("calc", McpServerTape(transport="stdio"))
    _call(comparer, 1, {"content": [{"type": "text", "text": "new"}]})
    assert comparer.changes == [] and comparer.calls == 1


@pytest.mark.parametrize("mode", ["--record", "--live"])
def test_a_relay_whose_server_cannot_start_says_so_in_one_line(
    mode: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "t.mcp.json"
    save_cassette(McpCassette(servers={"calc": _tape("5")}), cassette)
    missing = str(tmp_path / "no-such-server")
    assert main([str(cassette), "--server", "calc", mode, "--", missing]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"the MCP server {missing!r} could not be started: ")
    assert len(err.splitlines()) == 1


def _example_copy(tmp_path: Path, change: bool) -> Path:
    """examples/mcp_agents with its server and cassettes under ``tmp_path`` (the
    server's answer changed when ``change``)."""
    root = Path(__file__).resolve().parents[2]
    copy = tmp_path / "tree"
    for part in ("mcp_agents", "mcp_files", "cassettes/examples/mcp_agents"):
        shutil.copytree(
            root / "examples" / part,
            copy / "examples" / part,
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (copy / "examples" / "__init__.py").write_text("")
    (copy / "pytest.ini").write_text("[pytest]\n")  # the copy is the rootdir
    if change:
        server = copy / "examples" / "mcp_files" / "server.py"
        text = server.read_text()
        read = 'return target.read_text("utf-8")'
        assert read in text
        server.write_text(text.replace(read, read + '.replace("6QJ4", "7ZZ9")'))
    return copy


@pytest.mark.deep
@pytest.mark.parametrize("change", [False, True], ids=["unchanged", "changed"])
def test_the_agents_sdk_example_runs_its_real_server_live(tmp_path: Path, change: bool) -> None:
    """examples/mcp_agents (stdio and HTTP) under --harness-tools live: the real
    filesystem server runs; as recorded both evals pass, changed both fail named."""
    pytest.importorskip("agents")
    copy = _example_copy(tmp_path, change)
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "OPENAI_"))}
    command = [
        *(sys.executable, "-m", "pytest", "examples/mcp_agents", "-p", "no:randomly"),
        *("-p", "no:cacheprovider", "--harness-cassette-dir", "examples/cassettes"),
        *("--harness-tools", "live", "--basetemp", str(tmp_path / "base")),
    ]
    done = subprocess.run(
        command, cwd=copy, env=clean, capture_output=True, text=True, timeout=600, check=False
    )
    out = done.stdout
    if not change:
        assert done.returncode == 0, out[-4000:] + done.stderr[-2000:]
        assert "2 passed" in out
        return
    assert "2 failed" in out, out[-4000:]
    named = "ToolDivergence: MCP server 'files', tool 'read_file' answered differently"
    # Once per failing test in the failure sections; the short summary below them may
    # repeat it whole or cut to the terminal's width (CI's is wider), so it is left out.
    sections = out.split("short test summary info")[0]
    assert sections.count(named) == 2, out[-4000:]
    assert "    +The release code is RELEASE-CODE-7ZZ9." in out
