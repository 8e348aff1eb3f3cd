"""Output tools (pydantic-ai's ``final_result``, smolagents' ``final_answer``) are the answer:
the registry, the traffic trace, the row's tool count, ``compare`` and the trajectory."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from vcr.request import Request

from harness.core import ConfigurationError
from harness.core.output_tools import (
    OUTPUT_TOOLS,
    declared_output_tools,
    is_output_tool,
    may_declare_output_tools,
    output_tool_framework,
)
from harness.evals import EvalReport, EvalRow, Status, Verdict, compare_reports
from harness.recording import read_cassette
from harness.testing import (
    HttpExchange,
    assert_trajectory,
    normalize_trace,
    trace_from_cassette,
    trace_from_exchanges,
)
from harness.testing.cassettes.tool_calls import tool_calls_from_exchanges
from harness.testing.rows.traffic_rows import summarize_traffic
from harness.tracing import text_digest

URL = "https://api.openai.com/v1/chat/completions"
TOOLS = [
    {"type": "function", "function": {"name": "read_file", "parameters": {}}},
    {"type": "function", "function": {"name": "final_result", "parameters": {}}},
]
USER = {"role": "user", "content": "What is the release code?"}
ANSWER = json.dumps({"code": "RC-7"})


@pytest.mark.parametrize(
    ("name", "framework"),
    [
        ("final_result", "pydantic-ai"),
        ("final_result_Weather", "pydantic-ai"),
        ("final_result_2", "pydantic-ai"),
        ("final_answer", "smolagents"),
        ("final_results", None),
        ("final_result_", None),
        ("read_file", None),
        ("my_final_answer", None),
    ],
)
def test_the_registry_knows_each_framework_s_output_tools(name: str, framework: str | None) -> None:
    assert output_tool_framework(name) == framework
    assert is_output_tool(name) is (framework is not None)


MARK = "The final response which ends this conversation"


@pytest.mark.parametrize(
    ("description", "declared"),
    [
        (MARK, True),
        (f"Weather: {MARK}", True),
        (f"  {MARK}\n", True),
        (f"{MARK}.", False),
        (f"Read the notes. {MARK}", False),
        ("The release code found in the notes.", False),
        (None, False),
        ("", False),
    ],
)
def test_a_definition_declares_an_output_tool_by_pydantic_ai_s_marker(
    description: str | None, declared: bool
) -> None:
    assert declared_output_tools([("release_code", description)]) == (
        {"release_code"} if declared else set()
    )
    assert (
        is_output_tool("release_code", declared_output_tools([("release_code", description)]))
        is declared
    )


@settings(max_examples=80, deadline=None)
@given(
    st.text(max_size=30),
    st.text(alphabet="abcdefghij_", min_size=1, max_size=12),
    st.text(max_size=8).filter(lambda t: t.strip() != ""),
)
def test_only_the_marker_with_an_optional_type_prefix_declares(
    text: str, name: str, tail: str
) -> None:
    declared = declared_output_tools([(name, text)])
    # Declaring needs the marker, so the cheap body test never skips a declaring body.
    assert not declared or may_declare_output_tools(text.encode("utf-8", "surrogatepass"))
    prefix = text.replace(":", "").replace("\n", "").strip()
    typed = f"{prefix}: {MARK}" if prefix else MARK
    assert declared_output_tools([(name, typed)]) == {name}
    assert declared_output_tools([(name, MARK + tail)]) == set()
    assert is_output_tool(name, {name}) and not is_output_tool("read_file", {name})


def test_the_agents_sdk_is_listed_with_no_output_tool() -> None:
    (agents,) = [entry for entry in OUTPUT_TOOLS if entry.framework == "openai-agents"]
    assert agents.pattern is None and "final_output" in agents.how


def _call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _answer(message: dict[str, Any]) -> dict[str, Any]:
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    choice = {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}
    return {"id": "c", "object": "chat.completion", "model": "gpt-4.1-mini", "choices": [choice],
            "usage": usage}  # fmt: skip


def _run(final: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """A pydantic-ai-shaped run: read_file, then the answer ``final`` (text or output tool)."""
    asked = {"content": None, "tool_calls": [_call("c1", "read_file", '{"path": "notes.txt"}')]}
    result = {"role": "tool", "tool_call_id": "c1", "content": "The code is RC-7."}
    history = [USER, {"role": "assistant", **asked}, result]
    return [
        ({"model": "gpt-4.1-mini", "messages": [USER], "tools": TOOLS}, _answer(asked)),
        ({"model": "gpt-4.1-mini", "messages": history, "tools": TOOLS}, _answer(final)),
    ]


TEXT = {"content": ANSWER}
OUTPUT_TOOL = {"content": None, "tool_calls": [_call("c2", "final_result", ANSWER)]}


def _exchanges(run: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[HttpExchange]:
    json_type = {"content-type": "application/json"}
    return [
        HttpExchange(
            "POST", URL, json_type, json.dumps(a).encode(), 200, json_type, json.dumps(b).encode()
        )
        for a, b in run
    ]


def _pairs(run: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[tuple[Any, dict[str, Any]]]:
    headers = {"content-type": ["application/json"]}
    return [
        (
            Request("POST", URL, json.dumps(a).encode(), {"content-type": "application/json"}),
            {
                "status": {"code": 200},
                "headers": headers,
                "body": {"string": json.dumps(b).encode()},
            },
        )
        for a, b in run
    ]


def test_the_traffic_trace_reports_an_output_tool_as_the_answer() -> None:
    tree = trace_from_exchanges(_exchanges(_run(OUTPUT_TOOL)), mode="replay")
    assert [span.name for span in tree.find_all("tool.call")] == ["read_file"]
    last = tree.find_all("llm.call")[-1]
    assert last.attributes["output_tool"] == "final_result"
    assert last.attributes["tool_call_count"] == 0
    assert last.attributes["tool_calls"][0]["output"] is True
    assert last.attributes["payload"]["output"] == {"code": "RC-7"}
    root = tree.root.attributes
    assert (root["tool_calls"], root["all_tool_calls"]) == (1, 1)
    assert root["answer_hash"] == text_digest(ANSWER)


NAMED_TOOLS = [
    TOOLS[0],
    {"type": "function", "function": {"name": "answer", "description": MARK, "parameters": {}}},
]


def _named(
    run: list[tuple[dict[str, Any], dict[str, Any]]],
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """``run`` with pydantic-ai's ``ToolOutput(name="answer")``: its marker, not its name."""
    renamed = []
    for request, response in run:
        text = json.dumps(response).replace('"final_result"', '"answer"')
        renamed.append(({**request, "tools": NAMED_TOOLS}, json.loads(text)))
    return renamed


def test_a_tool_its_definition_marks_is_the_answer_in_trace_row_and_tool_calls() -> None:
    run = _named(_run(OUTPUT_TOOL))
    tree = trace_from_exchanges(_exchanges(run), mode="replay")
    last = tree.find_all("llm.call")[-1]
    assert (last.attributes["output_tool"], last.attributes["tool_call_count"]) == ("answer", 0)
    assert tree.root.attributes["answer_hash"] == text_digest(ANSWER)
    assert summarize_traffic(_pairs(run)).tool_calls == tree.root.attributes["tool_calls"] == 1
    assert [c.name for c in tool_calls_from_exchanges(_exchanges(run))] == ["read_file"]
    assert_trajectory(tree, [("read_file", {"path": "notes.txt"})])
    every = [("read_file", {"path": "notes.txt"}), ("answer", {"code": "RC-7"})]
    assert_trajectory(tree, every, include_output_tools=True)


def test_the_row_counts_no_output_tool_and_agrees_with_the_trace() -> None:
    summary = summarize_traffic(_pairs(_run(OUTPUT_TOOL)))
    tree = trace_from_exchanges(_exchanges(_run(OUTPUT_TOOL)))
    asked = sum(span.attributes["tool_call_count"] for span in tree.find_all("llm.call"))
    assert summary.tool_calls == asked == tree.root.attributes["tool_calls"] == 1


def _row(run: list[tuple[dict[str, Any], dict[str, Any]]]) -> EvalRow:
    summary = summarize_traffic(_pairs(run))
    shape = normalize_trace(trace_from_exchanges(_exchanges(run)))
    return EvalRow(scenario="release", nodeid="t.py::test", verdict=Verdict.PASS, shape=shape,
                   **summary.row_fields())  # fmt: skip


def test_compare_sees_no_change_when_only_the_output_mode_changed() -> None:
    text, tool = _row(_run(TEXT)), _row(_run(OUTPUT_TOOL))
    comparison = compare_reports(EvalReport(rows=(text,)), EvalReport(rows=(tool,)))
    (change,) = comparison.changes
    assert change.status is Status.SAME, change.notes


def test_a_sub_agent_never_nests_under_an_output_tool() -> None:
    # smolagents: the first agent answers through final_answer; a second agent with its
    # own instructions starts afterwards: another run, not final_answer's sub-agent.
    first = [{"role": "system", "content": "You are agent one."}, USER]
    done = {"content": None, "tool_calls": [_call("f1", "final_answer", '{"answer": "x"}')]}
    second = [{"role": "system", "content": "You are agent two."}, USER]
    run = [
        ({"model": "m", "messages": first, "tools": TOOLS}, _answer(done)),
        ({"model": "m", "messages": second, "tools": TOOLS[:1]}, _answer({"content": "ok"})),
    ]
    tree = trace_from_exchanges(_exchanges(run))
    assert not tree.find_all("subagent.run") and not tree.find_all("tool.call")
    assert len(tree.find_all("agent.step")) == 2


def test_a_metadata_traffic_trace_points_at_llm_cassette_for_argument_values() -> None:
    tree = trace_from_exchanges(_exchanges(_run(OUTPUT_TOOL)), mode="metadata")
    assert_trajectory(tree, [("read_file", {"path": "notes.txt"})])  # by hash
    with pytest.raises(ConfigurationError, match="pass the llm_cassette fixture"):
        assert_trajectory(tree, [("read_file", {"path": "notes.txt"})], args="superset")


def test_a_trajectory_leaves_output_tools_out_unless_asked() -> None:
    tree = trace_from_exchanges(_exchanges(_run(OUTPUT_TOOL)), mode="replay")
    assert_trajectory(tree, [("read_file", {"path": "notes.txt"})])
    expected = [("read_file", {"path": "notes.txt"}), ("final_result", {"code": "RC-7"})]
    assert_trajectory(tree, expected, include_output_tools=True)


def test_tool_calls_leave_output_tools_out_unless_asked() -> None:
    exchanges = _exchanges(_run(OUTPUT_TOOL))
    assert [c.name for c in tool_calls_from_exchanges(exchanges)] == ["read_file"]
    everything = tool_calls_from_exchanges(exchanges, include_output_tools=True)
    assert [(c.name, c.arguments) for c in everything] == [
        ("read_file", {"path": "notes.txt"}),
        ("final_result", {"code": "RC-7"}),
    ]


_NAMES = st.sampled_from(
    ["read_file", "final_result", "final_result_Weather", "final_answer", "final_results"]
) | st.from_regex(r"[a-z_]{1,12}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(st.lists(_NAMES, min_size=1, max_size=5))
def test_tool_calls_drop_exactly_the_output_tools(names: list[str]) -> None:
    calls = [_call(f"c{i}", name, "{}") for i, name in enumerate(names)]
    run = [({"model": "m", "messages": [USER], "tools": TOOLS}, _answer({"tool_calls": calls}))]
    kept = tool_calls_from_exchanges(_exchanges(run))
    assert [c.name for c in kept] == [n for n in names if not is_output_tool(n)]
    every = tool_calls_from_exchanges(_exchanges(run), include_output_tools=True)
    assert [c.name for c in every] == names


# -- real recordings: the shared corpus (pydantic-ai's own cassettes among them) ---------

ROOT = Path(__file__).resolve().parents[3]
CORPUS = next(
    (
        base / "cassettes"
        for base in (
            Path(os.environ.get("HARNESS_CORPUS_DIR", ROOT / "missing")),
            ROOT.parent / "shared" / "corpus",
            ROOT.parent.parent / "shared" / "corpus",
        )
        if (base / "cassettes").is_dir()
    ),
    None,
)


class _Request:
    def __init__(self, request: dict[str, Any]) -> None:
        self.method, self.uri, self.body = request["method"], request["uri"], request["body"]


@pytest.mark.deep  # reads every corpus cassette: seconds
@pytest.mark.skipif(CORPUS is None, reason="needs the shared corpus (../shared/corpus)")
def test_real_pydantic_ai_recordings_answer_through_final_result_in_row_and_trace() -> None:
    assert CORPUS is not None
    answered = []
    for path in sorted(CORPUS.rglob("*.yaml")):
        if "final_result" not in path.read_text("utf-8"):
            continue
        tree = trace_from_cassette(path)
        llm_calls = tree.find_all("llm.call")
        if not any(span.attributes.get("output_tool") for span in llm_calls):
            continue
        answered.append(path.name[:3])
        stored = read_cassette(path)
        summary = summarize_traffic([(_Request(q), r) for q, r in stored.interactions])
        asked = sum(span.attributes["tool_call_count"] for span in llm_calls)
        assert summary.tool_calls == asked, path.name
        assert not any(is_output_tool(span.name) for span in tree.find_all("tool.call"))
    # Google and Bedrock recordings of pydantic-ai's own tests, structured output among them.
    assert len(answered) >= 5, answered
