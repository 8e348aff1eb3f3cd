"""render_trace: the human view behind ``harness trace show``."""

from __future__ import annotations

from harness.tracing import Tracer, render_trace

from .conftest import build_run


def test_render_shows_outline_status_duration_and_key_attributes() -> None:
    tree = build_run(Tracer())
    lines = render_trace(tree).splitlines()
    assert lines[0].startswith(f"trace {tree.trace_id}  session s1")
    assert "7 spans, 1 with errors" in lines[0]
    assert lines[1].startswith("agent.run ")
    assert lines[2].startswith("  agent.step ")
    assert lines[3].startswith("    llm.call ")
    step_two = lines[5]
    assert step_two.lstrip().startswith("agent.step") and "step=2" in step_two
    failed = lines[7]
    assert (
        "tool.call write" in failed and "ERROR" in failed and "error_type=PermissionError" in failed
    )
    assert "ms" in lines[1] and "stop_reason=final" in lines[1]
    assert "events: context.compacted" in lines[1]
    assert "args_hash" not in render_trace(tree)  # hashes are hidden


def test_render_flattens_nested_usage() -> None:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run", attributes={"usage": {"input_tokens": 5}})
    tree = tracer.end_trace(root)
    assert tree is not None
    assert "usage.input_tokens=5" in render_trace(tree)
