"""Spans built on the hot path equal validated ones; labels and the outline."""

from __future__ import annotations

from harness.tracing import TraceSpan, outline_text, span_label, span_path
from harness.tracing._spans import new_event, new_span


def test_fast_built_span_equals_a_validated_span() -> None:
    fast = new_span(
        span_id="a1",
        parent_id=None,
        trace_id="t1",
        kind="tool.call",
        name="read",
        started_at="2024-01-01T00:00:00.000000Z",
        sequence=3,
        attributes={"x": 1},
    )
    fast.events.append(new_event("e", "2024-01-01T00:00:00.000000Z", {}))
    checked = TraceSpan.model_validate(fast.model_dump())
    assert checked == fast
    assert checked.model_fields_set == fast.model_fields_set
    assert fast.model_dump_json() == checked.model_dump_json()
    fast.status = "error"  # still an ordinary mutable model
    assert fast.status == "error"


def test_labels_outline_and_paths() -> None:
    def span(kind: str, name: str, *children: TraceSpan, **attributes: object) -> TraceSpan:
        return TraceSpan(
            span_id=f"{kind}-{name}-{len(children)}",
            parent_id=None,
            trace_id="t",
            kind=kind,
            name=name,
            started_at="2024-01-01T00:00:00Z",
            attributes=attributes,
            children=list(children),
        )

    read = span("tool.call", "read", ok=True)
    root = span(
        "agent.run",
        "agent.run",
        span("agent.step", "agent.step", step=1),
        span("agent.step", "agent.step", read, step=2),
    )
    assert span_label(read) == "tool.call read"
    assert span_label(read, ["ok", "missing"]) == "tool.call read [ok=true]"
    assert outline_text(root, ["step"]) == (
        "agent.run\n  agent.step [step=1]\n  agent.step [step=2]\n    tool.call read"
    )
    assert span_path(root, read) == "agent.run > agent.step[2] > tool.call read"
    assert span_path(root, root) == "agent.run"
