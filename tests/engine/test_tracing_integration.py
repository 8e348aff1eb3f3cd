"""Traces written by real runs: shape, ordering, capture modes and failures."""

from __future__ import annotations

import json
import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.core import TraceAssertionError
from harness.providers import ScriptedProvider, tool_call
from harness.testing import assert_trace_shape, load_trace, normalize_trace
from harness.tools import ToolInput
from harness.tracing import MemoryTraceRecorder, Tracer


def _settings(tmp_path: Path, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "workdir": tmp_path,
        "state_dir": tmp_path / "state",
        "enabled_tools": ("read", "write"),
        "approval_provider": "off",
    }
    values.update(overrides)
    return Settings(**values)


def test_read_read_write_run_has_the_exact_shape(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    provider = ScriptedProvider(
        [
            [tool_call("read", path="a.txt"), tool_call("read", path="b.txt")],
            tool_call("write", path="c.txt", content="gamma"),
            "done",
        ]
    )
    result = build_application(_settings(tmp_path), provider=provider).run("go", session="t")
    assert result.trace_id and result.trace_path
    assert result.trace_path.name == f"{result.trace_id}.json"
    assert result.trace_path.parent == tmp_path / "state" / "sessions" / "t" / "traces"
    tree = load_trace(result.trace_path)
    assert_trace_shape(
        tree,
        """
        agent.run
          agent.step
            llm.call
            tool.call read
            tool.call read
          agent.step
            llm.call
            tool.call write
          agent.step
            llm.call
        """,
    )
    step = tree.find_all(kind="agent.step")[0]
    assert step.attributes["step"] == 1 and step.attributes["phase"] == "act"
    assert step.attributes["visible_tool_count"] == 2
    llm = tree.find_all(kind="llm.call")[0]
    assert llm.attributes["provider"] == "scripted" and llm.attributes["tool_call_count"] == 2
    write = tree.one(kind="tool.call", name="write")
    assert write.attributes["argument_keys"] == ["content", "path"]
    assert write.attributes["is_error"] is False and write.attributes["tool_call_index"] == 0
    assert tree.root.attributes["stop_reason"] == "final"


class ReverseRead:
    """A slow ``read`` whose first call finishes last."""

    name = "read"
    description = "slow read"
    parameters: dict[str, Any] = {"type": "object", "properties": {"path": {"type": "string"}}}

    def __init__(self) -> None:
        self.barrier = threading.Barrier(3)

    def run(self, tool_input: ToolInput) -> str:
        path = str(tool_input.arguments["path"])
        self.barrier.wait(timeout=5)
        time.sleep({"a": 0.09, "b": 0.05, "c": 0.0}[path])
        return path


def test_concurrent_reads_are_ordered_by_call_index(tmp_path: Path) -> None:
    provider = ScriptedProvider([[tool_call("read", path=p) for p in ("a", "b", "c")], "done"])
    settings = _settings(tmp_path, enabled_tools=())
    app = build_application(settings, provider=provider, tools=[ReverseRead()])
    result = app.run("go", session="t")
    assert result.trace_path is not None
    tree = load_trace(result.trace_path)
    first_step = tree.find_all(kind="agent.step")[0]
    reads = [s for s in first_step.children if s.kind == "tool.call"]
    assert [s.attributes["tool_call_index"] for s in reads] == [0, 1, 2]
    ends = [s.ended_at for s in reads]
    assert ends[0] is not None and ends[2] is not None and ends[0] > ends[2]  # a ended last


def test_metadata_mode_writes_no_text(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("FILE-SENTINEL-3\n")
    provider = ScriptedProvider(
        [
            tool_call("read", path="notes.txt"),
            tool_call("write", path="ARG-SENTINEL-2.txt", content="CONTENT-SENTINEL-4"),
            "ANSWER-SENTINEL-5",
        ]
    )
    app = build_application(_settings(tmp_path), provider=provider)
    result = app.run("PROMPT-SENTINEL-1", session="t")
    assert result.trace_path is not None
    text = result.trace_path.read_text()
    for sentinel in (
        "PROMPT-SENTINEL",
        "ARG-SENTINEL",
        "FILE-SENTINEL",
        "CONTENT-SENTINEL",
        "ANSWER-SENTINEL",
    ):
        assert sentinel not in text


def test_replay_mode_keeps_redacted_truncated_payloads(tmp_path: Path) -> None:
    class Echo:
        name = "echo_args"
        description = "returns a long text"
        parameters: dict[str, Any] = {"type": "object", "properties": {}}

        def run(self, tool_input: ToolInput) -> str:
            return "x" * 5000

    provider = ScriptedProvider([tool_call("echo_args", api_key="sk-live-abcdef123456"), "ok"])
    settings = _settings(tmp_path, trace_mode="replay", trace_max_payload_chars=200)
    result = build_application(settings, provider=provider, tools=[Echo()]).run("go", session="t")
    assert result.trace_path is not None
    text = result.trace_path.read_text()
    assert "sk-live-abcdef123456" not in text
    span = load_trace(result.trace_path).one(kind="tool.call", name="echo_args")
    payload = span.attributes["payload"]
    assert payload["arguments"]["api_key"] == "[REDACTED]"
    assert len(payload["observation"]) < 300 and "truncated" in payload["observation"]


def test_off_mode_writes_nothing(tmp_path: Path) -> None:
    provider = ScriptedProvider(["ok"])
    result = build_application(_settings(tmp_path, trace_mode="off"), provider=provider).run(
        "go", session="t"
    )
    assert result.trace_path is None and result.trace_id is None
    assert not (tmp_path / "state" / "sessions" / "t" / "traces").exists()


def test_recorder_failure_warns_once_and_the_run_succeeds(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "sessions").write_text("a file where a folder should be")
    settings = _settings(tmp_path)
    provider = ScriptedProvider(["one", "two"])
    app = build_application(settings.model_copy(update={"state_dir": state}), provider=provider)
    caplog.set_level(logging.WARNING)
    app.memory.state_dir = tmp_path / "memory"  # memory elsewhere: only tracing fails here
    first = app.run("go", session="t")
    second = app.run("go", session="t")
    assert (first.text, second.text) == ("one", "two")
    assert first.trace_path is None and first.stop_reason == "final"
    warnings = [r for r in caplog.records if r.name.startswith("harness.tracing")]
    assert len(warnings) == 1


def test_shape_failure_names_the_first_differing_node(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    provider = ScriptedProvider([tool_call("read", path="a.txt"), "done"])
    result = build_application(_settings(tmp_path), provider=provider).run("go", session="t")
    assert result.trace_path is not None
    tree = load_trace(result.trace_path)
    with pytest.raises(TraceAssertionError) as info:
        assert_trace_shape(
            tree,
            "agent.run\n  agent.step\n    llm.call\n    tool.call write\n  agent.step\n"
            "    llm.call",
        )
    message = str(info.value)
    assert "tool.call write" in message and "tool.call read" in message
    assert "agent.step" in message


def test_custom_tracer_and_memory_recorder(tmp_path: Path) -> None:
    recorder = MemoryTraceRecorder()
    provider = ScriptedProvider(["ok"])
    app = build_application(_settings(tmp_path), provider=provider, tracer=Tracer(recorder))
    app.run("go", session="t")
    assert normalize_trace(recorder.last) == "agent.run\n  agent.step\n    llm.call"
    json.loads(recorder.last.to_json())
