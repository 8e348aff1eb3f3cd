"""A replayed conversation: wall and CPU time per 10-turn conversation, and a user turn's cost.

Run: ``python bench/conversation_replay.py``. Records one 10-turn conversation
against the local simulator (loopback only) in a temp dir: a model user (one
request a turn) talks to harness's runtime, which reads a file each turn (two
requests and one tool call a turn), so 30 model calls and 10 tool calls, all in
one cassette. Then replays it several times with record mode ``none`` and
prints the best wall and CPU time per conversation (target < 1 s, the agent's
tools included), and what one user turn costs: against the simulator (a real
HTTP round trip through the openai SDK) and replayed.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from harness import Settings, build_application
from harness.conversations import ModelUser, RuntimeAgent, UserSpec, run_conversation
from harness.simulator import SimulatorServer
from harness.testing.cassettes.recorded import recorded_provider

TURNS = 10
REPLAYS = 7
SCRIPT: dict[str, Any] = {
    "version": 1,
    "rules": [
        {"when": {"role": "user"}, "reply": "Tell me what the notes say, please."},
        {
            "when": {"role": "agent", "has_tool_results": False},
            "reply": {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        },
        {"kind": "echo_sentinels", "when": {"role": "agent"}},
    ],
}
SPEC = UserSpec.model_validate(
    {"persona": "A curious reader.", "goal": "Learn the notes.", "stop": {"max_turns": TURNS}}
)


class _TimedUser(ModelUser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seconds: list[float] = []

    def next_turn(self, history: Any, act: Any) -> Any:
        began = time.perf_counter()
        try:
            return super().next_turn(history, act)
        finally:
            self.seconds.append(time.perf_counter() - began)


def _converse(
    root: Path, cassette: Path, mode: str, url: str | None
) -> tuple[float, float, list[float]]:
    workdir = root / f"work-{time.perf_counter_ns()}"
    workdir.mkdir()
    (workdir / "notes.txt").write_text("notes: SENTINEL-NOTES-4F2A\n")
    with recorded_provider(
        "openai", model="gpt-4.1-mini", cassette=cassette, record_mode=mode, base_url=url
    ) as recorded:
        app = build_application(
            Settings(
                workdir=workdir, state_dir=workdir.with_suffix(".state"), trace_mode="metadata"
            ),
            provider=recorded.provider,
        )
        user = _TimedUser(SPEC, recorded.provider)
        agent = RuntimeAgent(app, session="bench")
        wall, cpu = time.perf_counter(), time.process_time()
        result = run_conversation(SPEC, user, agent, tracer=app.tracer, workdir=workdir)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        app.close()
    assert result.turns == TURNS and "SENTINEL-NOTES-4F2A" in result.last_reply, result
    return wall, cpu, user.seconds


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="harness-conv-bench-") as tmp:
        root = Path(tmp)
        cassette = root / "conversation.yaml"
        with SimulatorServer(SCRIPT) as server:
            _, _, live_user = _converse(root, cassette, "once", server.url)
        runs = [_converse(root, cassette, "none", None) for _ in range(REPLAYS)]
    best_wall = min(wall for wall, _, _ in runs)
    best_cpu = min(cpu for _, cpu, _ in runs)
    replayed_user = statistics.median(s for _, _, seconds in runs for s in seconds)
    print(f"a replayed {TURNS}-turn conversation (30 model calls, 10 tool calls):")
    print(f"  best of {REPLAYS}: {best_wall * 1000:.0f} ms wall, {best_cpu * 1000:.0f} ms CPU")
    print(f"  target < 1000 ms: {'met' if best_cpu < 1.0 else 'MISSED'}")
    print("a user turn (one user-model request), median:")
    print(f"  against the simulator: {statistics.median(live_user) * 1000:.1f} ms")
    print(f"  replayed: {replayed_user * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
