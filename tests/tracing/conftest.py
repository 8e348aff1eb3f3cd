"""Fixtures for the tracing tests: tracers wired to an in-memory or file recorder."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.tracing import FileTraceRecorder, MemoryTraceRecorder, Tracer, TraceTree


@pytest.fixture
def memory() -> MemoryTraceRecorder:
    """An in-memory recorder."""
    return MemoryTraceRecorder()


@pytest.fixture
def tracer(memory: MemoryTraceRecorder) -> Tracer:
    """A metadata-mode tracer recording into ``memory``."""
    return Tracer(memory)


@pytest.fixture
def file_tracer(tmp_path: Path) -> Tracer:
    """A metadata-mode tracer writing files under ``tmp_path/state``."""
    return Tracer(FileTraceRecorder(tmp_path / "state"))


def build_run(tracer: Tracer, *, session_key: str | None = "s1") -> TraceTree:
    """Record a small two-step run with a failing tool call and an event."""
    root = tracer.begin_trace("agent.run", session_key=session_key, metadata={"mode": "act"})
    for step in (1, 2):
        with tracer.span("agent.step", attributes={"step": step}):
            with tracer.span("llm.call", attributes={"input_tokens": 10 * step}):
                pass
            name = "read" if step == 1 else "write"
            try:
                with tracer.span("tool.call", name, attributes={"args_hash": "abc"}):
                    if step == 2:
                        raise PermissionError("denied")
            except PermissionError:
                pass
    tracer.add_event("context.compacted", {"dropped": 3}, span=root)
    tree = tracer.end_trace(root, attributes={"stop_reason": "final"})
    assert tree is not None
    return tree
