"""Tracer micro-costs: one span, one step's three spans, a 50-step trace and its file.

Complements ``trace_overhead.py`` (which measures a whole run) by timing the
tracer alone, so a change to one piece shows up without the engine's noise.

With the ``otel`` extra installed it also prints, side by side, the same 50-step
trace made with the OpenTelemetry SDK's own spans (a TracerProvider with one
SimpleSpanProcessor and an in-memory exporter, the cheapest real SDK set-up),
and the cost of mirroring a finished harness trace to it (``OTelTraceRecorder``).
Target: harness's spans cost at most 0.5x the SDK's.
Run: ``python bench/span_cost.py``.
"""

from __future__ import annotations

import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

from harness.tracing import FileTraceRecorder, Tracer, TraceTree

STEPS = 50

STEP_ATTRIBUTES = {"step": 1, "phase": "act", "tool_policy": "act", "visible_tool_count": 6}
LLM_BEGIN = {"provider": "scripted", "model": None, "message_count": 3, "visible_tools": ["read"]}
LLM_END = {"input_tokens": 10, "output_tokens": 5, "stop_reason": "tool_use", "latency_ms": 0.1}
TOOL_BEGIN = {"tool_call_id": "c1", "tool_name": "read", "argument_hash": "0123456789abcdef"}
TOOL_END = {"observation_hash": "0123456789abcdef", "observation_chars": 300, "is_error": False}


def one_step(tracer: Tracer) -> None:
    """The spans of one agent step: agent.step > llm.call, tool.call."""
    with tracer.span("agent.step", attributes=STEP_ATTRIBUTES):
        llm = tracer.begin_span("llm.call", attributes=LLM_BEGIN)
        tracer.end_span(llm, attributes=LLM_END)
        tool = tracer.begin_span("tool.call", "read", attributes=TOOL_BEGIN)
        tracer.end_span(tool, attributes=TOOL_END)


def one_run(tracer: Tracer) -> TraceTree | None:
    """A trace of ``STEPS`` steps, ended (and recorded, if the tracer has a recorder)."""
    root = tracer.begin_trace("agent.run", session_key="bench", attributes={"mode": "act"})
    for _ in range(STEPS):
        one_step(tracer)
    return tracer.end_trace(root, attributes={"stop_reason": "final"})


def best(label: str, func: Callable[[], object], number: int, per: int = 1) -> None:
    seconds = min(timeit.repeat(func, number=number, repeat=7)) / number / per
    print(f"  {label:34s} {seconds * 1e6:9.2f} µs")


def main() -> None:
    tracer = Tracer()
    root = tracer.begin_trace("agent.run")

    def pair() -> None:
        tracer.end_span(tracer.begin_span("llm.call", attributes=LLM_BEGIN), attributes=LLM_END)

    print("per call (best of 7)")
    best("begin_span + end_span", pair, 2000)
    best("one step (3 spans)", lambda: one_step(tracer), 1000)
    tracer.end_trace(root)
    best(f"{STEPS}-step trace, per step", lambda: one_run(Tracer()), 40, STEPS)
    tree = one_run(Tracer())
    assert tree is not None
    best("tree.to_json() (per run)", tree.to_json, 40)
    with tempfile.TemporaryDirectory() as tmp:
        recorder = FileTraceRecorder(Path(tmp))
        best("FileTraceRecorder.record (per run)", lambda: recorder.record(tree), 40)
        best(
            f"{STEPS}-step trace + file, per step",
            lambda: one_run(Tracer(recorder)),
            40,
            STEPS,
        )


def otel_comparison() -> None:
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    except ImportError:
        print("OpenTelemetry SDK not installed (pip install 'harness-toolkit[otel]'): skipped")
        return
    from harness.tracing.otel import OTelTraceRecorder

    exporter = InMemorySpanExporter()
    provider = TracerProvider(shutdown_on_exit=False)
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    otel = provider.get_tracer("bench")

    def otel_run() -> None:
        with otel.start_as_current_span("agent.run", attributes={"mode": "act"}) as root:
            for _ in range(STEPS):
                with otel.start_as_current_span("agent.step", attributes=STEP_ATTRIBUTES):
                    with otel.start_as_current_span("llm.call", attributes=LLM_BEGIN) as llm:
                        llm.set_attributes(LLM_END)
                    with otel.start_as_current_span("tool.call", attributes=TOOL_BEGIN) as tool:
                        tool.set_attributes(TOOL_END)
            root.set_attribute("stop_reason", "final")
        exporter.clear()

    tree = one_run(Tracer())
    assert tree is not None
    mirror = OTelTraceRecorder(provider)

    def mirrored() -> None:
        mirror.record(tree)
        exporter.clear()

    def per_step(func: Callable[[], object]) -> float:
        return min(timeit.repeat(func, number=20, repeat=7)) / 20 / STEPS * 1e6

    harness_cost = per_step(lambda: one_run(Tracer()))
    sdk_cost = per_step(otel_run)
    mirror_cost = per_step(mirrored)
    print(f"\n{STEPS}-step trace, per step (best of 7)   harness   OTel SDK   ratio")
    print(
        f"  spans made by each                 {harness_cost:7.2f} µs {sdk_cost:7.2f} µs"
        f"   {harness_cost / sdk_cost:.2f}x (target <= 0.5x)"
    )
    print(f"  mirror a finished harness trace to the SDK  {mirror_cost:7.2f} µs")


if __name__ == "__main__":
    main()
    otel_comparison()
