"""Trace assertions: outlines, shape matching, failure messages, golden files."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.core import TraceAssertionError
from harness.testing.assertions.trace_assertions import (
    assert_trace_golden,
    assert_trace_shape,
    load_trace,
    normalize_trace,
    parse_outline,
    render_trace,
)
from harness.testing.assertions.trace_query import find_shape_mismatch
from harness.tracing import FileTraceRecorder, OutlineNode, Tracer, TraceTree

RUN_OUTLINE = """\
agent.run
  agent.step
    llm.call
    tool.call explore
      subagent.run
        llm.call
        tool.call read
  agent.step
    llm.call
    tool.call read
    tool.call write !error
"""


@pytest.fixture
def tree() -> TraceTree:
    """A run shaped like RUN_OUTLINE, with step numbers and a failed write."""
    tracer = Tracer()
    root = tracer.begin_trace("agent.run")
    with tracer.span("agent.step", attributes={"step": 1}):
        with tracer.span("llm.call"):
            pass
        with tracer.span("tool.call", "explore"), tracer.span("subagent.run"):
            with tracer.span("llm.call"):
                pass
            with tracer.span("tool.call", "read"):
                pass
    with tracer.span("agent.step", attributes={"step": 2}):
        with tracer.span("llm.call"):
            pass
        with tracer.span("tool.call", "read"):
            pass
        failed = tracer.begin_span("tool.call", "write")
        tracer.end_span(failed, status="error")
    result = tracer.end_trace(root)
    assert result is not None
    return result


# -- normalize and parse --------------------------------------------------------


def test_normalize_trace_is_the_outline(tree: TraceTree) -> None:
    assert normalize_trace(tree) == RUN_OUTLINE.rstrip("\n")


def test_normalize_trace_with_attributes_and_subtrees(tree: TraceTree) -> None:
    step = tree.one("agent.step", step=2)
    assert normalize_trace(step, include_attributes=["step", "status"]) == (
        "agent.step [step=2]\n  llm.call\n  tool.call read\n  tool.call write !error"
    )


def test_parse_outline_round_trips_and_tolerates_layout() -> None:
    text = """

        # a comment
        agent.run

            agent.step [step=1, ok=true]
                tool.call *
                ...
    """
    node = parse_outline(text)
    assert node == OutlineNode(
        "agent.run",
        "agent.run",
        children=(
            OutlineNode(
                "agent.step",
                "agent.step",
                (("step", "1"), ("ok", "true")),
                (OutlineNode("tool.call", "*"), OutlineNode("...", "...")),
            ),
        ),
    )
    assert node.children[0].line == 6
    assert parse_outline(RUN_OUTLINE).to_text() == RUN_OUTLINE.rstrip("\n")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "the outline is empty", id="empty"),
        pytest.param("a\n\tb", "line 2 is indented with a tab", id="tab"),
        pytest.param(
            "a\n  b\n   c", "line 3 is indented 3 spaces, not a multiple of 2", id="odd-indent"
        ),
        pytest.param("a\n  b\n      c", "line 3 is indented more than one level", id="jump"),
        pytest.param("a\nb", "line 2 is a second top-level line", id="two-roots"),
        pytest.param("...", "line 1 '...' cannot be the root", id="gap-root"),
        pytest.param("a\n  ...\n    b", "line 3 is indented under '...'", id="gap-children"),
        pytest.param("a [step]", "write key=value", id="bad-attribute"),
    ],
)
def test_parse_outline_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(TraceAssertionError, match=message.replace("'", "'").replace(".", r"\.")):
        parse_outline(text)


# -- matching that succeeds ---------------------------------------------------------


@pytest.mark.parametrize(
    ("outline", "match", "ordered"),
    [
        pytest.param(RUN_OUTLINE, "exact", True, id="exact-ordered"),
        pytest.param(
            RUN_OUTLINE.replace(
                "    tool.call read\n    tool.call write !error",
                "    tool.call write !error\n    tool.call read",
            ),
            "exact",
            False,
            id="exact-unordered",
        ),
        pytest.param(
            "agent.run\n  agent.step\n    ...\n  agent.step\n    ...\n    tool.call write !error",
            "exact",
            True,
            id="exact-gaps",
        ),
        pytest.param(
            "agent.run\n  ...\n  agent.step\n    llm.call\n    ...\n    tool.call write !error",
            "exact",
            True,
            id="gap-before",
        ),
        pytest.param(
            "agent.run\n  tool.call explore\n    tool.call read\n  tool.call write !error",
            "subset",
            True,
            id="skip-levels",
        ),
        pytest.param(
            "agent.step [step=2]\n  tool.call write !error", "subset", True, id="root-anywhere"
        ),
        pytest.param(
            "agent.step\n  tool.call write !error\n  llm.call",
            "subset",
            False,
            id="subset-unordered",
        ),
        pytest.param(
            "agent.run\n  tool.call read\n  tool.call read\n  tool.call write !error",
            "subset",
            True,
            id="two-distinct",
        ),
        pytest.param(
            "agent.step [step=2]\n  tool.call *\n  tool.call * !error",
            "subset",
            True,
            id="attributes-wildcard",
        ),
    ],
)
def test_assert_trace_shape_passes(
    tree: TraceTree, outline: str, match: str, ordered: bool
) -> None:
    assert_trace_shape(tree, outline, match=match, ordered=ordered)  # type: ignore[arg-type]


def test_subset_siblings_must_be_disjoint(tree: TraceTree) -> None:
    # the only subagent.run is inside the explore call, so it cannot also be its sibling
    with pytest.raises(TraceAssertionError):
        assert_trace_shape(
            tree, "agent.step\n  tool.call explore\n  subagent.run", match="subset", ordered=False
        )


def test_a_span_can_be_checked_as_a_subtree(tree: TraceTree) -> None:
    explore = tree.one("tool.call", "explore")
    assert_trace_shape(
        explore, "tool.call explore\n  subagent.run\n    llm.call\n    tool.call read"
    )


# -- matching that fails, and what the message says ------------------------------------


@pytest.mark.parametrize(
    ("outline", "match", "ordered", "first"),
    [
        pytest.param(
            RUN_OUTLINE.replace("tool.call write", "tool.call edit"),
            "exact",
            True,
            "agent.run > agent.step[2] > tool.call write: "
            "expected 'tool.call edit !error', got 'tool.call write !error'",
            id="wrong-label",
        ),
        pytest.param(
            RUN_OUTLINE + "    tool.call bash\n",
            "exact",
            True,
            "agent.run > agent.step[2] > (child 4): "
            "expected 'tool.call bash' (outline line 12), got nothing",
            id="missing-child",
        ),
        pytest.param(
            RUN_OUTLINE.replace("        tool.call read\n", ""),
            "exact",
            True,
            "agent.run > agent.step[1] > tool.call explore > subagent.run > tool.call read: "
            "expected no more children of 'subagent.run', got 'tool.call read'",
            id="extra-child",
        ),
        pytest.param(
            RUN_OUTLINE.replace(
                "    llm.call\n    tool.call read\n    tool.call write !error",
                "    tool.call read\n    llm.call\n    tool.call bash",
            ),
            "exact",
            False,
            "agent.run > agent.step[2]: "
            "expected a child 'tool.call bash' (outline line 11), got none",
            id="unordered-missing",
        ),
        pytest.param(
            "agent.run\n  agent.step\n    tool.call write !error\n    llm.call",
            "subset",
            True,
            "agent.run > agent.step[2]: expected 'llm.call' (outline line 4) "
            "after 'tool.call write !error', found it only out of order",
            id="subset-out-of-order",
        ),
        pytest.param(
            "agent.run\n  approval.pause",
            "subset",
            True,
            "agent.run: expected 'approval.pause' (outline line 2) below, found none",
            id="subset-missing",
        ),
        pytest.param(
            "agent.step [step=3]",
            "subset",
            True,
            "agent.run: expected a span 'agent.step [step=3]' (outline line 1) somewhere",
            id="subset-attribute",
        ),
    ],
)
def test_failure_names_the_first_differing_node(
    tree: TraceTree, outline: str, match: str, ordered: bool, first: str
) -> None:
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace_shape(tree, outline, match=match, ordered=ordered)  # type: ignore[arg-type]
    message = str(caught.value)
    assert f"first difference: {first}" in message
    assert "expected outline:\n" in message and "actual outline:\n" in message
    assert "deepdiff (expected -> actual):\n" in message
    assert isinstance(caught.value, AssertionError)


def test_failure_message_shows_both_outlines_and_a_deepdiff(tree: TraceTree) -> None:
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace_shape(tree, RUN_OUTLINE.replace("tool.call write", "tool.call edit"))
    message = str(caught.value)
    expected_part, actual_part = message.split("actual outline:\n")
    assert "        tool.call edit" in expected_part
    assert "        tool.call write" in actual_part.split("deepdiff")[0]
    assert "root['agent.run'][1]['agent.step'][2]" in message
    assert "tool.call edit" in message.split("deepdiff")[1]


def test_find_shape_mismatch_returns_none_or_the_difference(tree: TraceTree) -> None:
    assert find_shape_mismatch(tree, parse_outline(RUN_OUTLINE)) is None
    mismatch = find_shape_mismatch(tree, parse_outline("agent.run"))
    assert mismatch is not None
    assert mismatch.path == "agent.run > agent.step[1]"
    with pytest.raises(ValueError, match="match must be"):
        find_shape_mismatch(tree, parse_outline("agent.run"), match="fuzzy")  # type: ignore[arg-type]


# -- golden files ----------------------------------------------------------------------


def test_missing_golden_file_says_to_update(tree: TraceTree, tmp_path: Path) -> None:
    with pytest.raises(TraceAssertionError, match="--update-shapes"):
        assert_trace_golden(tree, tmp_path / "run.shape")


def test_update_writes_the_golden_file_then_it_matches(tree: TraceTree, tmp_path: Path) -> None:
    golden = tmp_path / "shapes" / "run.shape"
    assert_trace_golden(tree, golden, update=True)
    assert golden.read_text(encoding="utf-8") == RUN_OUTLINE
    assert sorted(p.name for p in golden.parent.iterdir()) == ["run.shape"]
    assert_trace_golden(tree, golden)


def test_golden_mismatch_names_the_node_and_the_fix(tree: TraceTree, tmp_path: Path) -> None:
    golden = tmp_path / "run.shape"
    golden.write_text(RUN_OUTLINE.replace("tool.call write", "tool.call edit"), encoding="utf-8")
    with pytest.raises(TraceAssertionError) as caught:
        assert_trace_golden(tree, golden)
    message = str(caught.value)
    assert "--update-shapes" in message and str(golden) in message
    assert "agent.run > agent.step[2] > tool.call write" in message
    assert_trace_golden(tree, golden, update=True)
    assert_trace_golden(tree, golden)


def test_golden_with_attributes(tree: TraceTree, tmp_path: Path) -> None:
    golden = tmp_path / "run.shape"
    assert_trace_golden(tree, golden, update=True, include_attributes=["step"])
    assert "agent.step [step=2]" in golden.read_text(encoding="utf-8")
    assert_trace_golden(tree, golden, include_attributes=["step"])
    with pytest.raises(TraceAssertionError):
        assert_trace_golden(tree, golden)


# -- loading and viewing -----------------------------------------------------------------


def test_load_trace_and_render(tree: TraceTree, tmp_path: Path) -> None:
    path = FileTraceRecorder(tmp_path).record(tree)
    loaded = load_trace(path)
    assert loaded == tree and loaded.path == path
    view = render_trace(loaded)
    assert "tool.call write" in view and "ERROR" in view
