"""``mcp_cassette`` for an agent that starts its own servers with the ``mcp`` SDK:
record once through the stand-ins, then replay with no server process (stdio) and
no server listening (HTTP); a moved request is a miss naming the nearest one."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.mcp.servers import SERVER, new_tag, processes_with, start_http_server

pytest.importorskip("mcp")

AGENT = """
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

SERVER = Path(__file__).with_name("server_app.py")
B = int(os.environ.get("ADD_B", "3"))


async def _add(streams):
    async with ClientSession(*streams) as session:
        await session.initialize()
        listed = await session.list_tools()
        assert "add" in [tool.name for tool in listed.tools]
        result = await session.call_tool("add", {"a": 2, "b": B})
        return result.content[0].text


@pytest.mark.eval
def test_stdio(mcp_cassette):
    real = StdioServerParameters(
        command=sys.executable, args=[str(SERVER), "stdio", os.environ["TAG"]]
    )
    params = mcp_cassette.stdio("calc", real)

    async def main():
        async with stdio_client(params) as streams:
            return await _add(streams)

    assert anyio.run(main) == str(2 + B)


@pytest.mark.eval
def test_http(mcp_cassette):
    url = mcp_cassette.url("calc", os.environ["MCP_URL"])

    async def main():
        async with streamable_http_client(url) as streams:
            return await _add(streams)

    assert anyio.run(main) == str(2 + B)
"""


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess("-p", "no:randomly", *args)


@pytest.mark.deep
def test_record_then_replay_stdio_and_http_with_no_server(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    tag = new_tag()
    monkeypatch.setenv("TAG", tag)
    pytester.makepyfile(test_agent=AGENT)
    shutil.copy(SERVER, pytester.path / "server_app.py")
    process, url = start_http_server(tag)
    monkeypatch.setenv("MCP_URL", url)
    try:
        _run(pytester, "--record-mode=once").assert_outcomes(passed=2)
    finally:
        process.kill()
        process.wait()
    folder = pytester.path / "cassettes" / "test_agent"
    for name, transport in (("test_stdio", "stdio"), ("test_http", "http")):
        data = json.loads((folder / f"{name}.mcp.json").read_text())
        tape = data["servers"]["calc"]
        assert tape["transport"] == transport
        methods = [e["method"] for e in tape["exchanges"]]
        assert methods[0] == "initialize" and methods[-1] == "tools/call", methods
        assert tape["exchanges"][-1]["result"]["content"][0]["text"] == "5"
    (pytester.path / "server_app.py").unlink()
    _run(pytester, "--harness-block-live", "--harness-report", "r.json").assert_outcomes(passed=2)
    rows = json.loads((pytester.path / "r.json").read_text())["rows"]
    assert [row["mcp_calls"] for row in rows] == [{"calc": 1}, {"calc": 1}]
    assert processes_with(tag) == []


@pytest.mark.deep
def test_a_moved_call_fails_with_the_nearest_recorded_one(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TAG", new_tag())
    monkeypatch.setenv("MCP_URL", "http://127.0.0.1:9/mcp")
    pytester.makepyfile(test_agent=AGENT)
    shutil.copy(SERVER, pytester.path / "server_app.py")
    _run(pytester, "--record-mode=once", "-k", "stdio").assert_outcomes(passed=1)
    monkeypatch.setenv("ADD_B", "4")
    result = _run(pytester, "-k", "stdio")
    result.assert_outcomes(failed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*has no answer for server 'calc': tools/call 'add' {\"a\": 2, \"b\": 4}*",
            "*differs at params.arguments.b: recorded 3, now 4*",
        ]
    )


def test_replay_without_a_cassette_says_how_to_record(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_agent="""
import pytest
from harness.core.errors import CassetteError

def test_it(mcp_cassette):
    with pytest.raises(CassetteError, match="no MCP cassette at .*test_it.mcp.json"):
        mcp_cassette.command("calc", "never-started")
"""
    )
    pytester.runpytest("-p", "no:randomly").assert_outcomes(passed=1)


MODEL_TEST = """
import pytest

@pytest.mark.llm_cassette(model="marked-model")
def test_it(mcp_cassette):
    mcp_cassette.command("calc", "never-started")  # replays: the cassette must be found
    print("MCP-CASSETTE", mcp_cassette.path)
"""


@pytest.mark.parametrize(
    ("args", "model"),
    [((), "marked-model"), (("--harness-model", "other-model"), "other-model")],
    ids=["marker", "harness-model"],
)
def test_the_mcp_cassette_follows_the_model_cassettes_model_folder(
    pytester: pytest.Pytester, args: tuple[str, ...], model: str
) -> None:
    """Where ``--harness-mutants`` looks for it: beside ``<model>/<file>/<test>.yaml``."""
    from harness.mcp._cassette import McpCassette, McpServerTape, save_cassette

    pytester.makepyfile(test_agent=MODEL_TEST)
    tape = McpServerTape(transport="stdio", target="never-started")
    where = pytester.path / "cassettes" / model / "test_agent" / "test_it.mcp.json"
    save_cassette(McpCassette(servers={"calc": tape}), where)
    result = pytester.runpytest("-p", "no:randomly", "-s", *args)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"*MCP-CASSETTE {where}"])


def test_a_cassette_at_the_path_before_the_model_folder_is_named_with_its_move(
    pytester: pytest.Pytester,
) -> None:
    from harness.mcp._cassette import McpCassette, McpServerTape, save_cassette

    pytester.makepyfile(
        test_agent="""
import pytest

@pytest.mark.llm_cassette(model="marked-model")
def test_it(mcp_cassette):
    mcp_cassette.command("calc", "never-started")
"""
    )
    old = pytester.path / "cassettes" / "test_agent" / "test_it.mcp.json"
    tape = McpServerTape(transport="stdio", target="never-started")
    save_cassette(McpCassette(servers={"calc": tape}), old)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    new = pytester.path / "cassettes" / "marked-model" / "test_agent" / "test_it.mcp.json"
    result.stdout.fnmatch_lines([f"*no MCP cassette at {new}, but there is one at {old}*"])
    result.stdout.fnmatch_lines([f"*git mv {old} {new})*"])
