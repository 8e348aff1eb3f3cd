"""Traces record their capture mode; version 1 files still load; prompt and answer digests."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.providers import ScriptedProvider
from harness.tracing import (
    SCHEMA_VERSION,
    FileTraceRecorder,
    MemoryTraceRecorder,
    TraceFormatError,
    Tracer,
    TraceTree,
    text_digest,
)
from tests.tracing.conftest import build_run


@pytest.mark.parametrize("mode", ["metadata", "replay"])
def test_the_file_names_its_capture_mode_at_the_top(tmp_path: Path, mode: str) -> None:
    tree = build_run(Tracer(FileTraceRecorder(tmp_path), mode=mode))  # type: ignore[arg-type]
    assert tree.path is not None
    head = tree.path.read_text("utf-8")[:60]
    assert head.startswith(f'{{"schema_version":{SCHEMA_VERSION},"capture_mode":"{mode}",')
    assert TraceTree.load(tree.path).capture_mode == mode


def test_a_version_1_file_still_loads_without_a_capture_mode(tmp_path: Path) -> None:
    tree = build_run(Tracer(MemoryTraceRecorder()))
    data = json.loads(tree.to_json())
    data["schema_version"] = 1
    del data["capture_mode"]
    path = tmp_path / "old.json"
    path.write_text(json.dumps(data), "utf-8")
    loaded = TraceTree.load(path)
    assert loaded.capture_mode is None
    assert loaded.root == tree.root


@pytest.mark.parametrize(
    ("version", "capture_mode", "message"),
    [
        pytest.param(2, None, "capture_mode", id="v2-without-mode"),
        pytest.param(1, "replay", "capture_mode", id="v1-with-mode"),
        pytest.param(2, "everything", "capture_mode", id="unknown-mode"),
    ],
)
def test_an_inconsistent_capture_mode_is_refused(
    tmp_path: Path, version: int, capture_mode: str | None, message: str
) -> None:
    data = json.loads(build_run(Tracer(MemoryTraceRecorder())).to_json())
    data["schema_version"] = version
    data["capture_mode"] = capture_mode
    with pytest.raises(TraceFormatError, match=message):
        TraceTree.from_json(json.dumps(data))


def test_text_digest_is_prefixed_sha256() -> None:
    assert text_digest("héllo") == "sha256:" + hashlib.sha256("héllo".encode()).hexdigest()


@pytest.mark.parametrize("mode", ["metadata", "replay"])
def test_a_run_records_digests_and_sizes_of_prompt_and_answer(tmp_path: Path, mode: str) -> None:
    (tmp_path / "work").mkdir()
    settings = Settings(
        workdir=tmp_path / "work",
        state_dir=tmp_path / "state",
        trace_mode=mode,  # type: ignore[arg-type]
    )
    provider = ScriptedProvider(["the answer is 42"])
    app = build_application(settings, provider=provider)
    result = app.run("what is six times seven?", session="s")
    assert result.trace_path is not None
    tree = TraceTree.load(result.trace_path)
    attributes = tree.root.attributes
    assert attributes["prompt_hash"] == text_digest("what is six times seven?")
    assert attributes["prompt_chars"] == len("what is six times seven?")
    assert attributes["answer_hash"] == text_digest("the answer is 42")
    assert attributes["answer_chars"] == len("the answer is 42")
    text = result.trace_path.read_text("utf-8")
    if mode == "metadata":
        assert "six times seven" not in text and "the answer is 42" not in text
        assert "payload" not in attributes
    else:
        assert attributes["payload"]["prompt"] == "what is six times seven?"
        assert attributes["payload"]["answer"] == "the answer is 42"
