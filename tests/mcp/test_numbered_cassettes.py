"""A test's MCP cassettes for tool-result mutants: every one of them (``-2.mcp.json``
and later, a test's second application) is mutated, its results numbered on after
the first's, and a test name holding a dot (a parametrize id ``1.5``) keeps its
cassette beside the model's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from harness.evals.tool_result_mutants import mutated_cassette, tool_result_mutants_beside
from harness.mcp._cassette import (
    McpCassette,
    McpExchange,
    McpServerTape,
    mcp_cassette_path,
    mcp_cassettes_from,
    save_cassette,
)


def _tape(server: str, text: str) -> McpCassette:
    call = McpExchange(
        method="tools/call",
        params={"name": "read", "arguments": {}},
        result={"content": [{"type": "text", "text": text}]},
    )
    return McpCassette(servers={server: McpServerTape(transport="stdio", exchanges=[call])})


def _text(cassette: McpCassette, server: str) -> Any:
    result = cassette.servers[server].exchanges[0].result
    assert result is not None
    return result


@given(st.text(alphabet="abz09_-.[]=", min_size=1, max_size=12), st.integers(1, 4))
def test_the_mcp_cassette_keeps_the_whole_test_name(name: str, index: int) -> None:
    for suffix in (".yaml", ".yml", ".json"):
        path = mcp_cassette_path(Path("d") / f"{name}{suffix}", index)
        numbered = "" if index == 1 else f"-{index}"
        assert path == Path("d") / f"{name}{numbered}.mcp.json"


def test_a_dotted_test_name_keeps_its_mcp_cassette_for_mutants(tmp_path: Path) -> None:
    model = tmp_path / "test_x[1.5].yaml"
    save_cassette(_tape("s", "abcdef"), tmp_path / "test_x[1.5].mcp.json")
    mutants = tool_result_mutants_beside(model, ())
    assert [m.id for m in mutants] == ["empty_result.1", "error_result.1", "truncated_result.1"]


def test_every_cassette_of_a_test_is_mutated_its_results_numbered_on(tmp_path: Path) -> None:
    model = tmp_path / "test_x.yaml"
    first, second = _tape("a", "first result"), _tape("b", "second result")
    save_cassette(first, mcp_cassette_path(model))
    save_cassette(second, mcp_cassette_path(model, 2))
    assert mcp_cassettes_from(mcp_cassette_path(model)) == [
        tmp_path / "test_x.mcp.json",
        tmp_path / "test_x-2.mcp.json",
    ]
    mutants = tool_result_mutants_beside(model, ())
    assert [(m.id, m.cassette) for m in mutants if m.operator == "error_result"] == [
        ("error_result.1", 1),
        ("error_result.2", 2),
    ]
    assert "b.read" in next(m for m in mutants if m.id == "error_result.2").description
    both = [first, second]
    served_second = mutated_cassette(both, "error_result.2", 2)
    assert served_second is not None and _text(served_second, "b")["isError"] is True
    assert mutated_cassette(both, "error_result.2", 1) is first  # the other one: unchanged
    assert mutated_cassette(both, "error_result.1", 2) is second
    assert mutated_cassette(both, "error_result.3", 1) is None
