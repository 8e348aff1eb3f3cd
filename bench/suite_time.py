"""Suite time: the README's test command, its wall time and its slowest tests.

Run: ``python bench/suite_time.py [PYTEST ARGS]`` from the repo root (extra
arguments go to pytest, e.g. ``--deep -m deep`` for the deep tier, ``-p randomly``).
Target: the README command under 90 s wall on 2 cores.

It runs ``PYTHONDONTWRITEBYTECODE= python3 -m pytest -n auto -q`` and prints
the wall time, the CPU time of the whole run (pytest, its workers and every
subprocess), the slowest 10 tests by wall time and the 10 costliest by CPU.
On a shared machine wall time follows the load; CPU time, divided by the
cores, is the floor the wall time reaches on an idle machine.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-m", "pytest", "-n", "auto", "-q"]
TARGET_SECONDS = 90.0
SHOWN = 10


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _tests(folder: Path) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for path in folder.glob("*.jsonl"):
        rows.extend(json.loads(line) for line in path.read_text("utf-8").splitlines())
    return rows


def _table(title: str, rows: list[dict[str, object]], key: str) -> None:
    print(f"\n{title}")
    ranked = sorted(rows, key=lambda row: float(str(row[key])), reverse=True)[:SHOWN]
    for row in ranked:
        print(
            f"  {float(str(row['wall'])):7.2f} s wall {float(str(row['cpu'])):7.2f} s cpu  "
            f"{row['nodeid']}"
        )


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="harness-suite-time-") as tmp:
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE="", SUITE_TIME_DIR=tmp)
        bench = str(Path(__file__).resolve().parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (bench, env.get("PYTHONPATH")) if p)
        command = [*COMMAND, "-p", "_suite_cpu", *sys.argv[1:]]
        print("running: PYTHONDONTWRITEBYTECODE= python3 -m", " ".join(command[2:]), flush=True)
        cpu, started = _children_cpu(), time.perf_counter()
        done = subprocess.run(
            command,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        wall, cpu = time.perf_counter() - started, _children_cpu() - cpu
        rows = _tests(Path(tmp))
    summary = done.stdout.strip().splitlines()[-1:] or ["(no output)"]
    print(f"pytest: {summary[0]} (exit {done.returncode})")
    cores = os.cpu_count() or 1
    print(
        f"wall {wall:.1f} s (target < {TARGET_SECONDS:.0f} s); cpu {cpu:.1f} s "
        f"= {cpu / cores:.1f} s per core on {cores} cores; {len(rows)} tests timed"
    )
    _table(f"slowest {SHOWN} by wall time:", rows, "wall")
    _table(f"costliest {SHOWN} by CPU time:", rows, "cpu")
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
