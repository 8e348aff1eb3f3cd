"""``--harness-mutants`` over an MCP cassette: each recorded tool result emptied, failed, cut.

An eval that checks what its agent made of the tool's answer kills the three
tool-result mutants; one that only checks the run finished survives them, and
the table says so on a line of their own. Recorded once against the simulator
and the example filesystem server, then mutated with no server process.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.evals.tool_result_mutants import derive_tool_result_mutants, mutated_cassette
from harness.mcp._cassette import McpCassette, McpExchange, McpServerTape

pytest.importorskip("mcp")

ROOT = Path(__file__).resolve().parents[2]
SERVER = ROOT / "examples" / "mcp_files" / "server.py"
CODE = "RELEASE-CODE-3M8K"
SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {
            "when": {"tools_include": "files__read_file", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "files__read_file", "arguments": {"path": "n.txt"}}]},
        },
        {
            "fill": "RELEASE-CODE-[A-Z0-9]+",
            "when": {"last_tool_result_contains": "RELEASE-CODE"},
            "reply": "The release code is {match}.",
        },
        {"when": {"has_tool_results": True}, "reply": "I could not find a release code."},
    ],
}
EVALS = f"""
import sys
from pathlib import Path

import pytest

from harness.providers import RequestLoggingProvider

SERVER = Path(__file__).with_name("server.py")


def _answer(provider, make_harness_app, tmp_path):
    (tmp_path / "n.txt").write_text("The release code is {CODE}.\\n")
    args = [str(SERVER), "stdio", str(tmp_path)]
    servers = {{"files": {{"command": sys.executable, "args": args, "approval": "never"}}}}
    logged = RequestLoggingProvider(provider)
    text = make_harness_app(provider=logged, mcp_servers=servers).run("the code?").text
    seen = [m.content for m in logged.requests[-1].messages if m.role.value == "tool"]
    return text, seen


@pytest.mark.eval
def test_checks_what_the_tool_said(provider, make_harness_app, tmp_path):
    text, seen = _answer(provider, make_harness_app, tmp_path)
    assert "{CODE}" in text
    assert seen == ["The release code is {CODE}.\\n"], "the agent read the whole file"


@pytest.mark.eval
def test_checks_nothing(provider, make_harness_app, tmp_path):
    text, _ = _answer(provider, make_harness_app, tmp_path)
    assert text
"""


@pytest.mark.deep
def test_tool_result_mutants_are_killed_by_a_check_and_survive_without_one(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    pytester.makepyfile(test_agent=EVALS)
    shutil.copy(SERVER, pytester.path / "server.py")
    common = ("-p", "no:randomly", "--harness-provider", "openai")
    server = sim_server(SCRIPT)
    recorded = pytester.runpytest_subprocess(
        *common, "--record-mode=once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=2)
    server.stop()
    (pytester.path / "server.py").unlink()  # mutants are served with no server process
    result = pytester.runpytest_subprocess(*common, "--harness-mutants", "--harness-block-live")
    out = result.stdout.str()
    for kind in ("empty_result.1", "error_result.1", "truncated_result.1"):
        assert f"survived: {kind} (files.read_file(path='n.txt')" in out, out
    lines = [line.strip() for line in out.splitlines()]
    assert not any(line.startswith("error: ") for line in lines), out  # a changed call: no miss
    assert "tool-result mutants: 3/3 killed (counted in the kill rate)" in lines, out
    assert any(
        line.startswith("tool-result mutants: 0/3 killed (counted in the kill rate) — no check")
        for line in lines
    ), out


def _tape(result: dict[str, Any]) -> McpCassette:
    call = McpExchange(
        method="tools/call", params={"name": "f", "arguments": {"x": 1}}, result=result
    )
    listed = McpExchange(method="tools/list", result={"tools": []})
    return McpCassette(servers={"s": McpServerTape(transport="stdio", exchanges=[listed, call])})


def test_each_recorded_result_gets_the_three_mutants_and_each_changes_only_it() -> None:
    cassette = _tape(
        {"content": [{"type": "text", "text": "abcdef"}], "structuredContent": {"r": "abcdef"}}
    )
    mutants = derive_tool_result_mutants(cassette, ())
    assert [m.id for m in mutants] == ["empty_result.1", "error_result.1", "truncated_result.1"]
    results = {}
    for mutant in mutants:
        changed = mutated_cassette(cassette, mutant.id)
        assert changed is not None
        exchanges = changed.servers["s"].exchanges
        assert exchanges[0] == cassette.servers["s"].exchanges[0]
        results[mutant.operator] = exchanges[1].result
    assert results["empty_result"] == {
        "content": [],
        "isError": False,
        "structuredContent": {"r": ""},
    }
    assert results["error_result"] is not None and results["error_result"]["isError"] is True
    assert results["truncated_result"] == {
        "content": [{"type": "text", "text": "abc"}],
        "structuredContent": {"r": "abc"},
    }
    assert cassette.servers["s"].exchanges[1].result is not None  # the original is untouched
    assert cassette.servers["s"].exchanges[1].result["content"][0]["text"] == "abcdef"
    assert mutated_cassette(cassette, "error_result.2") is None


def test_a_failed_or_empty_result_gets_no_mutant_that_would_repeat_it() -> None:
    failed = _tape({"content": [{"type": "text", "text": "x"}], "isError": True})
    assert [m.id for m in derive_tool_result_mutants(failed, ())] == ["empty_result.1"]
    empty = derive_tool_result_mutants(_tape({"content": []}), ())
    assert [m.id for m in empty] == ["error_result.1"]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=10,
)


@given(
    texts=st.lists(st.text(max_size=12), min_size=1, max_size=3),
    structured=st.dictionaries(st.text(max_size=4), _JSON, max_size=3),
)
def test_every_mutant_changes_one_result_and_keeps_the_json_types(
    texts: list[str], structured: dict[str, Any]
) -> None:
    content = [{"type": "text", "text": t} for t in texts]
    cassette = _tape({"content": content, "structuredContent": structured})
    for mutant in derive_tool_result_mutants(cassette, ()):
        changed = mutated_cassette(cassette, mutant.id)
        assert changed is not None
        result = changed.servers["s"].exchanges[1].result
        assert result is not None and result != cassette.servers["s"].exchanges[1].result
        if mutant.operator != "error_result":
            kept = result["structuredContent"]
            assert _types(kept) <= _types(structured) | {"list"}, (structured, kept)
            assert set(kept) == set(structured)  # the schema's keys are still there


def _types(value: Any) -> set[str]:
    """The JSON types found anywhere in ``value``."""
    if isinstance(value, dict):
        return {"dict"}.union(*(_types(v) for v in value.values()))
    if isinstance(value, list):
        return {"list"}.union(*(_types(v) for v in value))
    return {type(value).__name__}


TWO_APPS = (
    EVALS.split("@pytest.mark.eval")[0]
    + f"""
@pytest.mark.eval
@pytest.mark.parametrize("rate", [1.5])
def test_two_apps(provider, make_harness_app, tmp_path, rate):
    for _ in range(2):  # the second application records its own -2.mcp.json
        text, seen = _answer(provider, make_harness_app, tmp_path)
        assert "{CODE}" in text
        assert seen == ["The release code is {CODE}.\\n"], "the agent read the whole file"
"""
)


@pytest.mark.deep
def test_a_dotted_test_with_two_applications_has_every_tool_result_mutated(
    pytester: pytest.Pytester, sim_server: Any
) -> None:
    pytester.makepyfile(test_agent=TWO_APPS)
    shutil.copy(SERVER, pytester.path / "server.py")
    common = ("-p", "no:randomly", "--harness-provider", "openai")
    server = sim_server(SCRIPT)
    recorded = pytester.runpytest_subprocess(
        *common, "--record-mode=once", "--harness-base-url", server.url
    )
    recorded.assert_outcomes(passed=1)
    server.stop()
    names = sorted(p.name for p in pytester.path.rglob("*.mcp.json"))
    assert names == ["test_two_apps-1.5-2.mcp.json", "test_two_apps-1.5.mcp.json"], names
    (pytester.path / "server.py").unlink()
    result = pytester.runpytest_subprocess(*common, "--harness-mutants", "--harness-block-live")
    lines = [line.strip() for line in result.stdout.str().splitlines()]
    assert "tool-result mutants: 6/6 killed (counted in the kill rate)" in lines, lines
