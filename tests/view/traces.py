"""Traces built for the viewer tests and the bench: overlapping calls, big trees."""

from __future__ import annotations

from harness.tracing import MemoryTraceRecorder, Tracer, TraceTree


def overlapping_tree() -> TraceTree:
    """A step whose two reads overlap in time (both begin before either ends),
    followed by a step with one read."""
    tracer = Tracer(MemoryTraceRecorder(), mode="replay")
    root = tracer.begin_trace("agent.run", session_key="par")
    with tracer.span("agent.step", attributes={"step": 1}) as step:
        first = tracer.begin_span("tool.call", "read", parent=step, activate=False)
        second = tracer.begin_span("tool.call", "read", parent=step, activate=False)
        tracer.end_span(first)
        tracer.end_span(second)
    with tracer.span("agent.step", attributes={"step": 2}), tracer.span("tool.call", "read"):
        pass
    tree = tracer.end_trace(root, attributes={"stop_reason": "final", "steps": 2})
    assert tree is not None
    return tree


def big_tree(spans: int = 1000) -> TraceTree:
    """A run of at least ``spans`` spans: steps with a model call, a read and an
    explore whose subagent takes a few steps of its own."""
    tracer = Tracer(MemoryTraceRecorder())
    root = tracer.begin_trace("agent.run", session_key="big")
    count, step = 1, 0
    while count < spans:
        step += 1
        with tracer.span("agent.step", attributes={"step": step}):
            with tracer.span("llm.call", attributes={"input_tokens": 100 + step}):
                pass
            with tracer.span("tool.call", "read", attributes={"tool_name": "read"}):
                pass
            with tracer.span("tool.call", "explore"), tracer.span("subagent.run"):
                for inner in range(2):
                    step_attributes = {"step": inner + 1}
                    with (
                        tracer.span("agent.step", attributes=step_attributes),
                        tracer.span("llm.call"),
                    ):
                        pass
        count += 9
    tree = tracer.end_trace(root, attributes={"stop_reason": "final", "steps": step})
    assert tree is not None
    return tree
