"""A trace this process wrote is read back without the schema; any other is validated."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from harness.jsonload import FAST_DEPTH, json_depth
from harness.tracing import FileTraceRecorder, TraceFormatError, Tracer, TraceTree
from harness.tracing import _tree as tree_module
from harness.tracing import _written as written


@pytest.fixture
def validations(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Every schema check ``TraceTree.from_json`` makes (a spy: the check still runs)."""
    seen: list[str | None] = []
    real = tree_module.validate_trace_document

    def spy(data: object, *, source: str | None = None) -> None:
        seen.append(source)
        real(data, source=source)

    monkeypatch.setattr(tree_module, "validate_trace_document", spy)
    return seen


def _write_trace(state: Path) -> Path:
    tracer = Tracer(recorder=FileTraceRecorder(state))
    root = tracer.begin_trace("agent.run", session_key="s")
    with tracer.span("agent.step", "step 1"):
        pass
    path = tracer.end_trace(root).path
    assert path is not None
    return path


def test_a_trace_written_here_loads_without_the_schema(
    tmp_path: Path, validations: list[str | None]
) -> None:
    path = _write_trace(tmp_path)
    for _ in range(3):
        assert TraceTree.load(path).root.kind == "agent.run"
    assert validations == []


def test_the_same_bytes_from_outside_are_validated_once_per_read(
    tmp_path: Path, validations: list[str | None]
) -> None:
    path = _write_trace(tmp_path)
    copy = tmp_path / "copy.json"
    copy.write_bytes(path.read_bytes() + b" ")  # one byte more: not what was written
    assert TraceTree.load(copy).root.kind == "agent.run"
    assert validations == [str(copy)]


def test_a_written_trace_changed_since_is_validated_and_a_bad_one_refused(
    tmp_path: Path, validations: list[str | None]
) -> None:
    path = _write_trace(tmp_path)
    text = path.read_text("utf-8")
    assert '"status":"ok"' in text
    path.write_text(text.replace('"status":"ok"', '"status":"maybe"', 1), "utf-8")
    with pytest.raises(TraceFormatError, match=r"root\.status"):
        TraceTree.load(path)
    assert validations == [str(path)]
    path.unlink()  # tests/conftest.py checks every trace a test leaves against the schema


def test_only_the_latest_digests_are_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(written, "REMEMBERED", 3)
    written.forget_written()
    for n in range(4):
        written.remember_written(b"doc %d" % n)
    assert not written.was_written(b"doc 0")
    assert all(written.was_written(b"doc %d" % n) for n in (1, 2, 3))
    written.forget_written()
    assert not written.was_written(b"doc 3")


def _nested_trace(state: Path, levels: int) -> Path:
    tracer = Tracer(recorder=FileTraceRecorder(state))
    root = tracer.begin_trace("agent.run", session_key="deep")
    with contextlib.ExitStack() as stack:
        for level in range(levels):
            stack.enter_context(tracer.span("agent.step", f"step {level}", attributes={"n": level}))
    path = tracer.end_trace(root).path
    assert path is not None
    return path


@pytest.mark.parametrize(
    "levels",
    [1, 60, 150, 300],
    ids=["flat", "shallow", "past-the-fast-path", "past-the-serializer"],
)
def test_a_written_trace_reads_as_the_same_tree_as_one_from_outside(
    tmp_path: Path, levels: int, validations: list[str | None]
) -> None:
    # Shallow ones go through pydantic in one pass, deep ones span by span: the same tree.
    path = _nested_trace(tmp_path, levels)
    assert (json_depth(path.read_bytes()) <= FAST_DEPTH) == (levels < 100)
    mine = TraceTree.load(path)
    assert validations == []
    written.forget_written()
    theirs = TraceTree.load(path)
    assert validations == [str(path)]
    # (text, not ==: pydantic compares models recursively, too deep for 300 levels)
    assert mine.to_json() == theirs.to_json() and mine.path == theirs.path == path
    assert len(list(mine.walk())) == levels + 1
