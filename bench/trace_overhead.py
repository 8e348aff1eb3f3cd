"""Tracing overhead: a 50-step scripted run with trace mode metadata vs off.

Both modes run interleaved in one process so machine noise hits them alike;
the ratio of medians is printed (target: metadata adds under 10%). A third
variant, metadata spans with no recorder, splits the cost between building
the spans and writing the trace file.
Run: ``python bench/trace_overhead.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from harness import Settings, build_application
from harness.providers import ScriptedProvider, tool_call
from harness.tracing import Tracer

STEPS = 50
ROUNDS = 40


def one_run(variant: str, workdir: Path, state: Path) -> float:
    turns: list[object] = [tool_call("read", path="data.txt") for _ in range(STEPS - 1)]
    turns.append("done")
    mode = "off" if variant == "off" else "metadata"
    settings = Settings(
        workdir=workdir, state_dir=state, trace_mode=mode, max_steps=STEPS, approval_provider="off"
    )
    tracer = Tracer(None, mode="metadata") if variant == "no-file" else None
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
        variants = ("off", "metadata", "no-file")
        timings: dict[str, list[float]] = {variant: [] for variant in variants}
        for index in range(ROUNDS + 2):
            for variant in variants:
                elapsed = one_run(variant, workdir, workdir / f"state-{variant}-{index}")
                if index >= 2:  # warm-up
                    timings[variant].append(elapsed)
        off, meta, spans = (statistics.median(timings[variant]) for variant in variants)
        print(f"{STEPS}-step scripted run, median of {ROUNDS} interleaved rounds")
        print(f"  trace off        {off * 1000:8.2f} ms  ({off / STEPS * 1000:.3f} ms/step)")
        print(f"  trace metadata   {meta * 1000:8.2f} ms  ({meta / STEPS * 1000:.3f} ms/step)")
        built, written = (spans - off) * 1000, (meta - spans) * 1000
        print(f"    spans and attributes {built:.2f} ms, the trace file {written:.2f} ms")
        print(f"  metadata/off     {meta / off:8.3f}x  (target < 1.10x)")


if __name__ == "__main__":
    main()
