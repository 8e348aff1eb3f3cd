"""Tracing overhead: a 50-step scripted run with trace mode metadata vs off.

Both modes run interleaved in one process so machine noise hits them alike;
the ratio of medians is printed (target: metadata adds under 10%). Two more
variants split the cost: ``attributes`` is a tracer that reports itself
enabled, so the engine computes every span attribute the trace format asks
for, but records nothing; ``no-file`` records the spans but writes no file.

A second table runs the same 50 steps through ``OpenAIProvider`` replaying a
cassette recorded against the local simulator (loopback only): the offline test
a user of harness runs in CI, where each step also pays for the SDK and the
cassette. It is context for the target, which is the scripted run's.
Run: ``python bench/trace_overhead.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness import Settings, build_application
from harness.providers import LLMProvider, OpenAIProvider, ScriptedProvider, tool_call
from harness.recording import use_cassette
from harness.simulator import SimulatorServer
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


READ = {"tool_calls": [{"name": "read", "arguments": {"path": "data.txt"}}]}
SCRIPT = {"version": 1, "turns": [READ] * (STEPS - 1) + ["done"]}


def scripted() -> ScriptedProvider:
    turns: list[object] = [tool_call("read", path="data.txt") for _ in range(STEPS - 1)]
    return ScriptedProvider([*turns, "done"])


def one_run(variant: str, workdir: Path, state: Path, provider: LLMProvider | None = None) -> float:
    mode = "off" if variant == "off" else "metadata"
    settings = Settings(
        workdir=workdir, state_dir=state, trace_mode=mode, max_steps=STEPS, approval_provider="off"
    )
    tracers = {"no-file": Tracer(None, mode="metadata"), "attributes": AttributesOnly(None)}
    tracer = tracers.get(variant)
    app = build_application(settings, provider=provider or scripted(), tracer=tracer)
    started = time.perf_counter()
    result = app.run("benchmark", session="bench")
    elapsed = time.perf_counter() - started
    app.close()
    assert result.stop_reason == "final" and result.steps == STEPS
    return elapsed


def interleaved(
    variants: tuple[str, ...], states: Path, run: Callable[[str, Path], float], rounds: int
) -> dict[str, float]:
    """Median seconds per run of each variant, the variants taking turns."""
    timings: dict[str, list[float]] = {variant: [] for variant in variants}
    for index in range(rounds + 2):
        for variant in variants:
            elapsed = run(variant, states / f"state-{variant}-{index}")
            if index >= 2:  # warm-up
                timings[variant].append(elapsed)
    return {variant: statistics.median(timings[variant]) for variant in variants}


def replayed(workdir: Path) -> dict[str, float]:
    """The run through OpenAIProvider and a cassette recorded once against the simulator."""
    cassette, states = workdir / "replay.yaml", workdir / "replay"

    def provider(url: str) -> OpenAIProvider:
        return OpenAIProvider("gpt-4o-mini", api_key="sk-bench", base_url=url, max_retries=0)

    with SimulatorServer(SCRIPT) as sim:
        url = f"{sim.url}/v1"
        with use_cassette(cassette, record_mode="once"), provider(url) as llm:
            one_run("off", workdir, states / "state-record", llm)

    def run(variant: str, state: Path) -> float:
        with use_cassette(cassette), provider(url) as llm:
            return one_run(variant, workdir, state, llm)

    return interleaved(("off", "metadata"), states, run, ROUNDS // 2)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "data.txt").write_text("".join(f"line {i}\n" for i in range(40)))
        variants = ("off", "metadata", "no-file", "attributes")
        medians = interleaved(
            variants, workdir, lambda variant, state: one_run(variant, workdir, state), ROUNDS
        )
        off, meta, spans, attributes = (medians[variant] for variant in variants)
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
        replay = replayed(workdir)
        print(f"\nthe same run replayed through OpenAIProvider, median of {ROUNDS // 2} rounds")
        print(f"  trace off        {replay['off'] * 1000:8.2f} ms")
        print(f"  trace metadata   {replay['metadata'] * 1000:8.2f} ms")
        print(f"  metadata/off     {replay['metadata'] / replay['off']:8.3f}x  (for context)")


if __name__ == "__main__":
    main()
