"""NullTracer: a Tracer that does nothing."""

from __future__ import annotations

from harness.tracing import NULL_SPAN, NullTracer, Tracer


def test_null_tracer_is_a_tracer_in_mode_off() -> None:
    tracer = NullTracer()
    assert isinstance(tracer, Tracer)
    assert (tracer.mode, tracer.enabled, tracer.capture_payloads) == ("off", False, False)


def test_every_method_is_a_no_op_returning_the_shared_span() -> None:
    tracer = NullTracer()
    root = tracer.begin_trace("agent.run", session_key="s")
    step = tracer.begin_span("agent.step", attributes={"step": 1})
    tracer.set_attributes(step, x=1)
    tracer.set_payload(step, "prompt", "secret text")
    tracer.set_status(step, "error")
    tracer.add_event("e", {"a": 1})
    with tracer.span("llm.call") as call, tracer.attach(tracer.current_state()):
        assert call is NULL_SPAN
    with tracer.trace("agent.run") as other:
        assert other is NULL_SPAN
    tracer.end_span(step, error=ValueError("x"))
    assert root is NULL_SPAN and step is NULL_SPAN
    assert tracer.end_trace(root) is None
    assert tracer.current_span() is None and tracer.current_span_id() is None
    assert not tracer.has_active_trace()
    assert tracer.state_of(step).span is None
    assert NULL_SPAN.attributes == {} and NULL_SPAN.events == [] and NULL_SPAN.children == []
