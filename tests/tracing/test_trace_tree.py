"""TraceTree: queries by kind, name, status, attributes and ancestry; JSON I/O."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.core import TraceAssertionError
from harness.tracing import TraceFormatError, Tracer, TraceTree, TracingError

from .conftest import build_run


@pytest.fixture
def tree() -> TraceTree:
    """A run with an explore tool call that runs a subagent."""
    tracer = Tracer()
    root = tracer.begin_trace("agent.run", session_key="s1")
    with tracer.span("agent.step", attributes={"step": 1}):
        with tracer.span("llm.call"):
            pass
        with tracer.span("tool.call", "explore"), tracer.span("subagent.run"):
            with tracer.span("llm.call"):
                pass
            with tracer.span("tool.call", "read", attributes={"path_hash": "h1"}):
                pass
    with (
        tracer.span("agent.step", attributes={"step": 2}),
        tracer.span("tool.call", "read", attributes={"path_hash": "h2"}),
    ):
        pass
    result = tracer.end_trace(root)
    assert result is not None
    return result


def test_walk_is_depth_first_in_begin_order(tree: TraceTree) -> None:
    assert [s.label for s in tree.walk()] == [
        "agent.run",
        "agent.step",
        "llm.call",
        "tool.call explore",
        "subagent.run",
        "llm.call",
        "tool.call read",
        "agent.step",
        "tool.call read",
    ]


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        pytest.param({"kind": "tool.call"}, ["explore", "read", "read"], id="kind"),
        pytest.param({"kind": "tool.call", "name": "read"}, ["read", "read"], id="kind-name"),
        pytest.param({"path_hash": "h2"}, ["read"], id="attribute"),
        pytest.param({"kind": "agent.step", "step": 2}, ["agent.step"], id="kind-attribute"),
        pytest.param({"status": "error"}, [], id="status"),
        pytest.param({"kind": "tool.call", "within": "subagent.run"}, ["read"], id="within-kind"),
        pytest.param(
            {"kind": "llm.call", "within": "tool.call explore"}, ["llm.call"], id="within-label"
        ),
        pytest.param({"kind": "no.such"}, [], id="nothing"),
    ],
)
def test_find_all_filters(tree: TraceTree, filters: dict[str, object], expected: list[str]) -> None:
    assert [s.name for s in tree.find_all(**filters)] == expected  # type: ignore[arg-type]


def test_within_a_span_limits_to_its_descendants(tree: TraceTree) -> None:
    second_step = tree.one("agent.step", step=2)
    read = tree.one("tool.call", "read", within=second_step)
    assert read.attributes["path_hash"] == "h2"
    assert tree.find("llm.call", within=second_step) is None


def test_find_returns_the_first_match_or_none(tree: TraceTree) -> None:
    found = tree.find("tool.call", "read")
    assert found is not None and found.attributes["path_hash"] == "h1"
    assert tree.find("approval.pause") is None


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        pytest.param({"kind": "tool.call", "name": "read"}, "found 2", id="several"),
        pytest.param({"kind": "approval.pause"}, "found 0", id="none"),
    ],
)
def test_one_lists_matches_and_the_trace_on_failure(
    tree: TraceTree, filters: dict[str, str], message: str
) -> None:
    with pytest.raises(TraceAssertionError, match=message) as caught:
        tree.one(**filters)  # type: ignore[arg-type]
    text = str(caught.value)
    assert "tool.call explore" in text  # the outline of what exists
    if message == "found 2":
        assert (
            "agent.run > agent.step[1] > tool.call explore > subagent.run > tool.call read" in text
        )
        assert "agent.run > agent.step[2] > tool.call read" in text


def test_parent_and_ancestors(tree: TraceTree) -> None:
    inner_read = tree.one("tool.call", "read", within="subagent.run")
    assert [s.label for s in tree.ancestors(inner_read)] == [
        "subagent.run",
        "tool.call explore",
        "agent.step",
        "agent.run",
    ]
    parent = tree.parent(inner_read)
    assert parent is not None and parent.kind == "subagent.run"
    assert tree.parent(tree.root) is None
    assert tree.ancestors(tree.root) == []
    assert tree.span_by_id(inner_read.span_id) is inner_read


def test_parent_of_a_foreign_span_is_an_error(tree: TraceTree) -> None:
    other = build_run(Tracer())
    with pytest.raises(ValueError, match="is not in trace"):
        tree.parent(other.root.children[0])


def test_json_round_trip(tree: TraceTree) -> None:
    again = TraceTree.from_json(tree.to_json())
    assert again == tree
    assert again.path is None


def test_attribute_values_that_are_not_json_are_stringified() -> None:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run", attributes={"where": Path("/tmp/x"), "obj": object})
    tree = tracer.end_trace(root)
    assert tree is not None
    data = json.loads(tree.to_json())
    assert data["root"]["attributes"] == {"where": "/tmp/x", "obj": "<class 'object'>"}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        pytest.param('{"schema_version": 1, "trace_id": ', "not valid JSON", id="truncated"),
        pytest.param(b"\xff\xfe\x00garbage", "not valid JSON", id="binary"),
        pytest.param("[1, 2]", "not a JSON object", id="array"),
        pytest.param('{"schema_version": 3}', "schema_version 3", id="future-version"),
        pytest.param('{"trace_id": "x"}', "schema_version None", id="no-version"),
    ],
)
def test_corrupt_files_give_clear_errors(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    path = tmp_path / "trace.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(TraceFormatError, match=message) as caught:
        TraceTree.load(path)
    assert str(path) in str(caught.value)


def test_schema_violation_names_the_location(tmp_path: Path, tree: TraceTree) -> None:
    data = json.loads(tree.to_json())
    data["root"]["children"][0]["status"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceFormatError, match=r"root\.children\[0\]\.status"):
        TraceTree.load(path)


def test_missing_file_is_a_tracing_error(tmp_path: Path) -> None:
    with pytest.raises(TracingError, match="cannot read trace file"):
        TraceTree.load(tmp_path / "absent.json")
