"""Evals of an Agents SDK agent with MCP tools: one server over stdio, one over HTTP.

Recorded once against the simulator (``examples/sim.yaml``) and the real
filesystem server; replayed with no server process: ``mcp_cassette`` hands the
agent a stand-in command or URL that answers from ``<test>.mcp.json``. Each eval
checks the tool call, what the tool answered and the answer, so it also kills
the tool-result mutants of ``--mutants`` (an empty, failed or cut result).
"""

from __future__ import annotations

import asyncio
import json
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest
from agents import Runner, RunResult
from agents.mcp import MCPServer, MCPServerStdio, MCPServerStreamableHttp

from examples.mcp_agents.agent import SERVER, build, http_server
from harness.testing import LLMCassette, McpCassetteFixture

CODE = "RELEASE-CODE-6QJ4"
NOTE = f"The release code is {CODE}.\n"


def _run(llm_cassette: LLMCassette, server: MCPServer) -> RunResult:
    async def ask() -> RunResult:
        async with llm_cassette.async_openai() as client, server:
            return await Runner.run(build(client, server), "What is the release code?")

    return asyncio.run(ask())


def _check(result: RunResult) -> None:
    calls = [
        (item.raw_item.name, json.loads(item.raw_item.arguments))
        for item in result.new_items
        if item.type == "tool_call_item"
    ]
    assert calls == [("read_file", {"path": "notes.txt"})]
    outputs: list[Any] = [i.output for i in result.new_items if i.type == "tool_call_output_item"]
    assert len(outputs) == 1 and NOTE.strip() in str(outputs[0]), "the tool read the whole note"
    assert CODE in str(result.final_output)


@pytest.mark.eval("mcp-stdio")
@pytest.mark.llm_cassette(profile="openai-agents")
def test_reads_the_code_over_stdio(
    llm_cassette: LLMCassette, mcp_cassette: McpCassetteFixture, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text(NOTE)
    command, args = mcp_cassette.command(
        "files", sys.executable, [str(SERVER), "stdio", str(tmp_path)]
    )
    server = MCPServerStdio({"command": command, "args": args}, name="files")
    _check(_run(llm_cassette, server))


@pytest.mark.eval("mcp-http")
# The stand-in's HTTP goes to the MCP cassette only: the model's cassette leaves it alone.
@pytest.mark.llm_cassette(profile="openai-agents")
def test_reads_the_code_over_http(
    llm_cassette: LLMCassette, mcp_cassette: McpCassetteFixture, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text(NOTE)
    # The real server runs only while recording (or under --harness-tools live);
    # a replay never starts it.
    live = (
        http_server(tmp_path)
        if mcp_cassette.real_servers
        else nullcontext("http://mcp.invalid/mcp")
    )
    with live as url:
        server = MCPServerStreamableHttp({"url": mcp_cassette.url("files", url)}, name="files")
        _check(_run(llm_cassette, server))
