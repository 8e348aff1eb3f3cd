"""The MCP cassette format, its matching and misses, the config reader, and the check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.core.errors import CassetteError, ConfigurationError
from harness.mcp._cassette import (
    MISS_CODE,
    McpCassette,
    TapePlayer,
    TapeRecorder,
    first_difference,
    load_cassette,
    save_cassette,
)
from harness.mcp._check import check_mcp_cassette
from harness.mcp._config import expand_env, load_mcp_config

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-1000, 1000) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
arguments = st.dictionaries(st.text(min_size=1, max_size=6), json_values, max_size=4)


def _recorded(calls: list[tuple[dict[str, Any], str]]) -> TapeRecorder:
    recorder = TapeRecorder("stdio", "srv")
    recorder.client_sent({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"v": 1}})
    recorder.server_sent({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "x"}})
    recorder.client_sent({"jsonrpc": "2.0", "method": "notifications/initialized"})
    for index, (args, text) in enumerate(calls, start=1):
        params = {"name": "tool", "arguments": args}
        recorder.client_sent(
            {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": params}
        )
        recorder.server_sent({"jsonrpc": "2.0", "method": "notifications/progress", "params": {}})
        recorder.server_sent({"jsonrpc": "2.0", "id": index, "result": {"content": text}})
    return recorder


@given(arguments, st.text(max_size=10), st.integers(100, 10_000))
def test_a_recorded_call_replays_its_result_under_the_new_id(
    args: dict[str, Any], text: str, new_id: int
) -> None:
    player = TapePlayer("srv", _recorded([(args, text)]).tape)
    sent = {"jsonrpc": "2.0", "id": new_id, "method": "tools/call"}
    replies = player.answer({**sent, "params": {"name": "tool", "arguments": args}})
    assert replies[-1] == {"jsonrpc": "2.0", "id": new_id, "result": {"content": text}}
    assert replies[0]["method"] == "notifications/progress", "notifications come first"
    assert player.misses == []


@given(json_values, json_values)
def test_first_difference_is_none_exactly_when_the_values_are_equal(a: Any, b: Any) -> None:
    found = first_difference(a, b)
    assert (found is None) == (json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True))


def test_a_miss_names_the_nearest_recorded_call_and_answers_with_an_error() -> None:
    player = TapePlayer("srv", _recorded([({"a": 1, "b": 2}, "3"), ({"x": "far"}, "?")]).tape)
    sent = {"name": "tool", "arguments": {"a": 1, "b": 5}}
    replies = player.answer({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": sent})
    assert replies[0]["error"]["code"] == MISS_CODE
    (miss,) = player.misses
    assert miss.nearest is not None and miss.nearest.params == {
        "name": "tool",
        "arguments": {"a": 1, "b": 2},
    }
    assert miss.difference == "params.arguments.b: recorded 2, now 5"
    assert 'nearest recorded: tools/call \'tool\' {"a": 1, "b": 2}' in str(miss)


def test_initialize_matches_by_method_and_repeats_replay() -> None:
    player = TapePlayer("srv", _recorded([({}, "once")]).tape)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"other": "client"}}
    assert player.answer(init)[-1]["result"] == {"protocolVersion": "x"}
    call = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "tool", "arguments": {}}}
    assert player.answer({**call, "id": 2})[-1]["result"] == {"content": "once"}
    assert player.answer({**call, "id": 3})[-1]["result"] == {"content": "once"}
    assert player.misses == []


def test_save_scrubs_secrets_writes_atomically_and_loads_back(tmp_path: Path) -> None:
    key = "sk-proj-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA9876"
    recorder = _recorded([({"q": "hi"}, f"the key is {key}")])
    path = tmp_path / "deep" / "t.mcp.json"
    save_cassette(McpCassette(servers={"srv": recorder.tape}), path)
    text = path.read_text()
    assert key not in text and "the key is <scrubbed>" in text
    assert [p.name for p in path.parent.iterdir()] == ["t.mcp.json"]
    loaded = load_cassette(path)
    assert loaded.servers["srv"].exchanges[-1].result == {"content": "the key is <scrubbed>"}
    assert check_mcp_cassette(path) == []


def test_a_request_holding_a_secret_is_stored_scrubbed_and_still_matches(tmp_path: Path) -> None:
    key = "sk-proj-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA9876"
    path = tmp_path / "t.mcp.json"
    recorder = _recorded([({"note": f"use {key}"}, "done")])
    save_cassette(McpCassette(servers={"srv": recorder.tape}), path)
    assert key not in path.read_text()
    player = TapePlayer("srv", load_cassette(path).servers["srv"])
    params = {"name": "tool", "arguments": {"note": f"use {key}"}}
    replies = player.answer({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": params})
    assert replies[-1]["result"] == {"content": "done"} and player.misses == []


def test_the_check_finds_a_secret_written_by_hand_and_an_unreadable_file(tmp_path: Path) -> None:
    key = "sk-proj-" + "Zx9yW8vU7tS6rQ5pO4nM3lK2jI1hG0fEdCbA9876"
    path = tmp_path / "t.mcp.json"
    exchange = {"method": "tools/call", "result": {"content": key}}
    path.write_text(json.dumps({"servers": {"s": {"transport": "stdio", "exchanges": [exchange]}}}))
    findings = check_mcp_cassette(path)
    assert findings and key not in " ".join(str(f) for f in findings)
    broken = tmp_path / "b.mcp.json"
    broken.write_text('{"servers": 3}')
    (finding,) = check_mcp_cassette(broken)
    assert finding.kind == "unreadable" and "re-record" in finding.excerpt
    with pytest.raises(CassetteError, match="no MCP cassette at"):
        load_cassette(tmp_path / "absent.mcp.json")


def test_the_config_reads_either_shape_from_a_file_and_expands_variables(tmp_path: Path) -> None:
    inner = {"s": {"command": "run", "args": ["${HOME_X:-dflt}"], "approval": "never"}}
    path = tmp_path / "servers.json"
    path.write_text(json.dumps({"mcpServers": inner}))
    from_file = load_mcp_config(path)
    from_mapping = load_mcp_config(inner)
    assert from_file is not None and from_mapping is not None
    assert from_file.servers == from_mapping.servers
    assert from_file.source == str(path)
    assert expand_env(from_file.servers["s"].args[0], {}) == "dflt"
    assert expand_env("${A}-${A}", {"A": "1"}) == "1-1"
    with pytest.raises(ConfigurationError, match=r"\$\{MISSING\}, which is not set"):
        expand_env("${MISSING}", {})
    path.write_text("{not json")
    with pytest.raises(ConfigurationError, match=r"servers.json.*is not valid JSON: .*line 1"):
        load_mcp_config(path)
