"""Speed tweaks (harness._speed): a replayed eval suite's time per row, each tweak on and off.

Run: ``python bench/speed_tweaks.py`` from the repo root (``--cases 150`` picks the
size, ``--turns 2`` the alternations, ``--tweaks gc_freeze,sdk_order`` a few).

A temp project of generated cases (bench/eval_scale.py's: one tool call, two
model calls a row) over two SDKs (``openai`` and ``anthropic`` rows), recorded
once against the simulator, is replayed with ``harness eval -n 2 --dist load``
(where ``sdk_schedule`` acts; ``--dist worksteal``, ``harness eval``'s default,
is where ``sdk_order`` alone keeps a worker on its SDK): all tweaks on, then the same run
with ``HARNESS_SPEED_OFF=<tweak>``, in turns (on, off, off, on...), so a drift of
the shared machine hits both sides. Printed per tweak: the median CPU time of the
process tree and wall time per row, on and off, and the difference. CPU is the
steadier figure on a shared machine. A tweak worth under 1 ms a row goes.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT))

from eval_scale import Run, generate, harness_eval, record  # noqa: E402

from harness._speed import TWEAKS  # noqa: E402

PROVIDERS = ("openai", "anthropic")


def _replay(project: Path, off: str, dist: str) -> Run:
    pick = ["-k", "(openai and not responses) or anthropic"]
    env = {"HARNESS_SPEED_OFF": off} if off else {}
    run = harness_eval(project, "-n", "2", "--dist", dist, *pick, env_extra=env)
    if run.code != 0 or run.passed != run.rows or not run.rows:
        tail = "\n".join(run.stdout.splitlines()[-15:])
        raise SystemExit(f"the replay failed (HARNESS_SPEED_OFF={off!r}):\n{tail}")
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=150)
    parser.add_argument("--turns", type=int, default=2)
    parser.add_argument("--tweaks", default=",".join(TWEAKS))
    parser.add_argument("--dist", default="load", help="pytest-xdist mode (load, worksteal)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="speed-tweaks-") as folder:
        project = Path(folder)
        generate(project, args.cases)
        recorded = record(project, PROVIDERS)
        if recorded.code != 0:
            raise SystemExit("recording failed:\n" + recorded.stdout[-2000:])
        _replay(project, "", args.dist)  # warm the disk cache and the bytecode
        print(f"harness eval -n 2 --dist {args.dist}, {args.cases} cases x {len(PROVIDERS)} SDKs")
        print(
            f"{'tweak':<16}{'cpu on':>9}{'cpu off':>9}{'saves':>9}{'wall on':>10}"
            f"{'wall off':>10}{'saves':>9}   (ms a row, median of {args.turns} turns)"
        )
        for tweak in args.tweaks.split(","):
            on: list[Run] = []
            off: list[Run] = []
            for turn in range(args.turns):
                pair = [("", on), (tweak, off)]
                for name, runs in pair if turn % 2 == 0 else reversed(pair):
                    runs.append(_replay(project, name, args.dist))
            rows = on[0].rows

            def ms(runs: list[Run], attr: str, rows: int = rows) -> float:
                return statistics.median(getattr(r, attr) for r in runs) / rows * 1000

            cpu_on, cpu_off = ms(on, "cpu"), ms(off, "cpu")
            wall_on, wall_off = ms(on, "wall"), ms(off, "wall")
            print(
                f"{tweak:<16}{cpu_on:9.2f}{cpu_off:9.2f}{cpu_off - cpu_on:9.2f}"
                f"{wall_on:10.2f}{wall_off:10.2f}{wall_off - wall_on:9.2f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
