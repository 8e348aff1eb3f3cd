"""ToolExecutor: concurrency of reads, barriers, ordering and error observations."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from harness.core import RAW_ARGUMENTS_KEY, ToolCall
from harness.engine._executor import ToolExecutor
from harness.tools import ToolInput, ToolRegistry


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[str] = []

    def add(self, event: str) -> None:
        with self.lock:
            self.events.append(event)


class SlowRead:
    """A fake ``read``: both reads of a batch must be in flight at once to pass the barrier."""

    name = "read"
    description = "fake read"
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    }

    def __init__(self, recorder: Recorder, barrier: threading.Barrier | None) -> None:
        self.recorder = recorder
        self.barrier = barrier

    def run(self, tool_input: ToolInput) -> str:
        path = tool_input.arguments["path"]
        self.recorder.add(f"start:{path}")
        if self.barrier is not None and path in ("a", "b"):
            self.barrier.wait(timeout=5)  # fails unless both reads overlap
            time.sleep(0.05 if path == "a" else 0.0)  # "a" finishes last
        self.recorder.add(f"end:{path}")
        return f"content of {path}"


class Write:
    name = "write"
    description = "fake write"
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def run(self, tool_input: ToolInput) -> str:
        self.recorder.add("write")
        return "written"


class Boom:
    name = "boom"
    description = "always raises"
    parameters: dict[str, Any] = {"type": "object", "properties": {}}

    def run(self, tool_input: ToolInput) -> str:
        raise RuntimeError("kaput")


def _executor(recorder: Recorder, barrier: threading.Barrier | None = None) -> ToolExecutor:
    return ToolExecutor(ToolRegistry([SlowRead(recorder, barrier), Write(recorder), Boom()]))


def test_reads_overlap_write_is_a_barrier_and_order_is_kept(tmp_path: Path) -> None:
    recorder = Recorder()
    executor = _executor(recorder, threading.Barrier(2))
    calls = [
        ToolCall(id="1", name="read", arguments={"path": "a"}),
        ToolCall(id="2", name="read", arguments={"path": "b"}),
        ToolCall(id="3", name="write", arguments={}),
        ToolCall(id="4", name="read", arguments={"path": "c"}),
    ]
    batch = executor.run_tool_batch(calls, visible_tool_names=("read", "write"), workdir=tmp_path)
    executor.close()
    assert [m.tool_call_id for m in batch.observations] == ["1", "2", "3", "4"]
    assert [m.content for m in batch.observations] == [
        "content of a",
        "content of b",
        "written",
        "content of c",
    ]
    events = recorder.events
    # b finished before a: they really ran at the same time, yet order above is a, b.
    assert events.index("end:b") < events.index("end:a")
    assert events.index("write") > max(events.index("end:a"), events.index("end:b"))
    assert events.index("start:c") > events.index("write")


@pytest.mark.parametrize(
    ("call", "error_type", "fragment"),
    [
        (ToolCall(name="nope", arguments={}), "unknown_tool", "unknown tool 'nope'"),
        (ToolCall(name="write", arguments={}), "tool_not_visible", "not available"),
        (ToolCall(name="read", arguments={}), "invalid_arguments", "missing required"),
        (ToolCall(name="read", arguments={"path": 3}), "invalid_arguments", "type string"),
        (
            ToolCall(name="read", arguments={RAW_ARGUMENTS_KEY: "{not json"}),
            "invalid_arguments",
            "not a valid JSON object",
        ),
        (ToolCall(name="boom", arguments={}), "tool_exception", "RuntimeError: kaput"),
    ],
    ids=["unknown", "invisible", "missing-arg", "wrong-type", "malformed-json", "exception"],
)
def test_bad_calls_become_error_observations(
    tmp_path: Path, call: ToolCall, error_type: str, fragment: str
) -> None:
    executor = _executor(Recorder())
    batch = executor.run_tool_batch(
        [call, ToolCall(id="ok", name="read", arguments={"path": "z"})],
        visible_tool_names=("read", "boom"),
        workdir=tmp_path,
    )
    first, second = batch.observations
    assert first.metadata["is_error"] is True
    assert first.metadata["error_type"] == error_type
    assert fragment in first.content
    assert second.content == "content of z"  # the batch goes on
