"""Recorders: file layout, atomic writes, failures that never break the run."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import pytest

from harness.tracing import (
    FileTraceRecorder,
    MemoryTraceRecorder,
    MultiTraceRecorder,
    Tracer,
    TraceRecorder,
    TraceRecordError,
    TraceTree,
    validate_trace_document,
)

from .conftest import build_run


@pytest.mark.parametrize(
    ("session_key", "folder"),
    [pytest.param("s1", "s1", id="session"), pytest.param(None, "_no_session", id="no-session")],
)
def test_file_recorder_writes_one_valid_file_per_trace(
    tmp_path: Path, session_key: str | None, folder: str
) -> None:
    tracer = Tracer(FileTraceRecorder(tmp_path))
    tree = build_run(tracer, session_key=session_key)
    expected = tmp_path / "sessions" / folder / "traces" / f"{tree.trace_id}.json"
    assert tree.path == expected
    assert sorted(p.name for p in expected.parent.iterdir()) == [expected.name]  # no temp files
    validate_trace_document(json.loads(expected.read_text(encoding="utf-8")))
    loaded = TraceTree.load(expected)
    assert loaded == tree
    assert loaded.path == expected


def test_file_recorder_replaces_atomically(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    recorder = FileTraceRecorder(tmp_path)
    tree = build_run(Tracer())
    target = recorder.record(tree)
    before = target.read_text(encoding="utf-8")

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    tree.root.attributes["changed"] = True
    with pytest.raises(TraceRecordError, match="No space left on device"):
        recorder.record(tree)
    assert target.read_text(encoding="utf-8") == before  # the old file is intact
    assert [p.name for p in target.parent.iterdir()] == [target.name]  # temp file removed


def test_trace_file_is_compact_json_with_a_span_per_line(tmp_path: Path) -> None:
    tree = build_run(Tracer())
    tree.root.attributes["quoted"] = '{"span_id": "not a span"}'  # inside a string: no break
    tree.root.attributes["nested"] = {"span_id": "not a span either"}  # an object: a break
    target = FileTraceRecorder(tmp_path).record(tree)
    text = target.read_text(encoding="utf-8")
    header, *lines = text.splitlines()
    assert header.startswith('{"schema_version":2,"capture_mode":"metadata",')
    assert header.endswith('"root":')
    assert all(line.startswith('{"span_id":') for line in lines)
    assert len(lines) == len(list(tree.walk())) + 1  # the nested object starts a line too
    assert text.endswith("\n") and "  " not in text
    assert TraceTree.load(target) == tree


@pytest.mark.parametrize(
    "session_key",
    [
        pytest.param("../escape", id="dot-dot"),
        pytest.param("a/b", id="slash"),
        pytest.param(".hidden", id="dot"),
    ],
)
def test_unsafe_session_keys_are_refused(tmp_path: Path, session_key: str) -> None:
    tree = build_run(Tracer(), session_key=session_key)
    with pytest.raises(TraceRecordError, match="cannot be used as a file name"):
        FileTraceRecorder(tmp_path).record(tree)


def test_unwritable_state_dir_logs_one_warning_and_runs_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state folder should be", encoding="utf-8")
    tracer = Tracer(FileTraceRecorder(blocker))
    with caplog.at_level(logging.WARNING, logger="harness.tracing"):
        first = build_run(tracer)
        second = build_run(tracer)
    assert first.path is None and second.path is None
    assert first.one("agent.run").status == "ok"
    warnings = [r for r in caplog.records if r.name == "harness.tracing"]
    assert len(warnings) == 1
    assert first.trace_id in warnings[0].getMessage()
    assert "the run continues" in warnings[0].getMessage()


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_state_dir_logs_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    tmp_path.chmod(0o500)
    try:
        with caplog.at_level(logging.WARNING, logger="harness.tracing"):
            tree = build_run(Tracer(FileTraceRecorder(tmp_path / "state")))
    finally:
        tmp_path.chmod(0o700)
    assert tree.path is None
    assert len(caplog.records) == 1


def test_any_recorder_exception_is_contained(caplog: pytest.LogCaptureFixture) -> None:
    class Exploding:
        def record(self, tree: TraceTree) -> Path | None:
            raise RuntimeError("exporter down")

    recorder: TraceRecorder = Exploding()
    with caplog.at_level(logging.WARNING, logger="harness.tracing"):
        tree = build_run(Tracer(recorder))
    assert tree.path is None
    assert "exporter down" in caplog.text


def test_memory_recorder_keeps_trees_in_order() -> None:
    memory = MemoryTraceRecorder()
    tracer = Tracer(memory)
    first, second = build_run(tracer), build_run(tracer)
    assert memory.trees == [first, second]
    assert memory.last is second
    assert first.path is None
    memory.clear()
    with pytest.raises(AssertionError, match="no trace was recorded"):
        _ = memory.last


def test_multi_recorder_fans_out_and_returns_the_file_path(tmp_path: Path) -> None:
    memory = MemoryTraceRecorder()
    tracer = Tracer(MultiTraceRecorder(memory, FileTraceRecorder(tmp_path)))
    tree = build_run(tracer)
    assert memory.trees == [tree]
    assert tree.path is not None and tree.path.is_file()


def test_recorders_satisfy_the_protocol(tmp_path: Path) -> None:
    for recorder in (FileTraceRecorder(tmp_path), MemoryTraceRecorder(), MultiTraceRecorder()):
        assert isinstance(recorder, TraceRecorder)
