"""Tracing overhead: a 50-step scripted run with trace mode metadata vs off.

Both modes run interleaved in one process so machine noise hits them alike;
the ratio of medians is printed (target: metadata adds under 10%). Two more
variants split the cost: ``attributes`` is a tracer that reports itself
enabled, so the engine computes every span attribute the trace format asks
for, but records nothing; ``no-file`` records the spans but writes no file.
Run: ``python bench/trace_overhead.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from harness import Settings, build_application
from harness.providers import ScriptedProvider, tool_call
from harness.tracing import NULL_SPAN, Tracer, TraceSpan, TraceTree

STEPS = 50
ROUNDS = 40


class AttributesOnly(Tracer):
    """Enabled, so call sites build their attributes; keeps no span and no tree."""

    def begin_trace(self, kind: str, name: str | None = None, **_: object) -> TraceSpan:
        return NULL_SPAN

    def end_trace(self, root: TraceSpan, **_: object) -> TraceTree | None:
        return None

    def begin_span(self, kind: str, name: str | None = None, **_: object) -> TraceSpan:
        return NULL_SPAN

    def end_span(self, span: TraceSpan, **_: object) -> None:
        return None


def one_run(variant: str, workdir: Path, state: Path) -> float:
    turns: list[object] = [tool_call("read", path="data.txt") for _ in range(STEPS - 1)]
    turns.append("done")
    mode = "off" if variant == "off" else "metadata"
    settings = Settings(
        workdir=workdir, state_dir=state, trace_mode=mode, max_steps=STEPS, approval_provider="off"
    )
    tracers = {"no-file": Tracer(None, mode="metadata"), "attributes": AttributesOnly(None)}
    tracer = tracers.get(variant)
    app = build_application(settings, provider=ScriptedProvider(turns), tracer=tracer)
    started = time.perf_counter()
    result = app.run("benchmark", session="bench")
    elapsed = time.perf_counter() - started
    app.close()
    assert result.stop_reason == "final" and result.steps == STEPS
    return elapsed


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "data.txt").write_text("".join(f"line {i}\n" for i in range(40)))
        variants = ("off", "metadata", "no-file", "attributes")
        timings: dict[str, list[float]] = {variant: [] for variant in variants}
        for index in range(ROUNDS + 2):
            for variant in variants:
                elapsed = one_run(variant, workdir, workdir / f"state-{variant}-{index}")
                if index >= 2:  # warm-up
                    timings[variant].append(elapsed)
        off, meta, spans, attributes = (statistics.median(timings[v]) for v in variants)
        print(f"{STEPS}-step scripted run, median of {ROUNDS} interleaved rounds")
        print(f"  trace off        {off * 1000:8.2f} ms  ({off / STEPS * 1000:.3f} ms/step)")
        print(f"  trace metadata   {meta * 1000:8.2f} ms  ({meta / STEPS * 1000:.3f} ms/step)")
        computed = (attributes - off) * 1000
        built, written = (spans - attributes) * 1000, (meta - spans) * 1000
        print(
            f"    attributes alone {computed:.2f} ms ({attributes / off:.3f}x), "
            f"spans {built:.2f} ms, the trace file {written:.2f} ms"
        )
        print(f"  metadata/off     {meta / off:8.3f}x  (target < 1.10x)")


if __name__ == "__main__":
    main()
