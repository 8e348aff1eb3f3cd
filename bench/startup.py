"""Startup cost: ``harness --help`` next to ``python -c pass``, measured side by side.

Run: ``python bench/startup.py``. Target: ``harness --help`` under 300 ms more
than a bare interpreter.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

ROUNDS = 15
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "import harness": [sys.executable, "-c", "import harness"],
    "harness --help": [sys.executable, "-m", "harness", "--help"],
}


def main() -> None:
    timings: dict[str, list[float]] = {name: [] for name in COMMANDS}
    for _ in range(ROUNDS):
        for name, command in COMMANDS.items():  # interleaved, so noise hits all alike
            started = time.perf_counter()
            subprocess.run(command, stdout=subprocess.DEVNULL, check=True)
            timings[name].append(time.perf_counter() - started)
    base = statistics.median(timings["python -c pass"])
    for name, values in timings.items():
        median = statistics.median(values)
        print(f"{name:16s} {median * 1000:7.1f} ms  (+{(median - base) * 1000:6.1f} ms)")
    extra = (statistics.median(timings["harness --help"]) - base) * 1000
    print(f"harness --help costs {extra:.0f} ms over a bare interpreter (target < 300 ms)")


if __name__ == "__main__":
    main()
