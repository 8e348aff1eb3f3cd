"""Per-step cost of the MainLoop on trivial in-memory work.

A FunctionProvider asks for one call of a trivial user tool per step for 40
steps, then answers. Prints the mean per-step cost and early/late step costs
(late/early ratio shows whether the history is re-copied or re-validated each
step). Run: ``python bench/mainloop_bench.py``.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import Settings, build_application
from harness.core import LLMRequest, LLMResponse, Role, ToolCall
from harness.providers import FunctionProvider
from harness.tools import ToolInput

STEPS = 40
RUNS = 30


class Noop:
    name = "noop"
    description = "Does nothing."
    parameters: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer"}}}

    def run(self, tool_input: ToolInput) -> str:
        return "ok"


class StepClock:
    """Provider that asks for one noop per step and times the gap between calls."""

    def __init__(self) -> None:
        self.stamps: list[float] = []

    def __call__(self, request: LLMRequest) -> LLMResponse:
        self.stamps.append(time.perf_counter())
        done = sum(1 for m in request.messages if m.role is Role.TOOL)
        if done >= STEPS:
            return LLMResponse(text="done")
        return LLMResponse(
            tool_calls=(ToolCall(id=f"c{done}", name="noop", arguments={"n": done}),)
        )


def one_run(trace_mode: str, state_dir: Path) -> tuple[float, list[float]]:
    clock = StepClock()
    settings = Settings(
        workdir=state_dir,
        state_dir=state_dir,
        enabled_tools=(),
        trace_mode=trace_mode,  # type: ignore[arg-type]
        approval_provider="off",
        max_steps=STEPS + 1,
    )
    app = build_application(settings, provider=FunctionProvider(clock), tools=[Noop()])
    started = time.perf_counter()
    result = app.run("benchmark", session="bench")
    total = time.perf_counter() - started
    assert result.stop_reason == "final" and result.steps == STEPS + 1, result
    gaps = [b - a for a, b in zip(clock.stamps, clock.stamps[1:], strict=False)]
    return total / (STEPS + 1), gaps


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for mode in ("off", "metadata"):
            per_step: list[float] = []
            early: list[float] = []
            late: list[float] = []
            for index in range(RUNS):
                state = Path(tmp) / f"{mode}-{index}"
                state.mkdir()
                mean, gaps = one_run(mode, state)
                if index == 0:
                    continue  # warm-up
                per_step.append(mean)
                early.extend(gaps[:5])
                late.extend(gaps[-5:])
            ms = statistics.median(per_step) * 1000
            ratio = statistics.median(late) / statistics.median(early)
            print(
                f"trace={mode:9s} per-step {ms:.3f} ms (target < 0.5 ms)  "
                f"steps 36-40 vs 1-5: {ratio:.2f}x (target < 2x)"
            )


if __name__ == "__main__":
    main()
