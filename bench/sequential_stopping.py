"""The upgrade gate's figures in one run: what it can detect, and what sequential stopping saves.

Run: ``python bench/sequential_stopping.py`` (``--cases 200 --epochs 10``;
``--simulate-only`` skips the real runs; ``--seeds 20`` for the simulation).

1. The detection-power table of the committed suite (``bench/detection_power.py``):
   the drop detectable at k = 1, 3, 5, 10 epochs, per case and pooled.
2. A generated suite of ``--cases`` eval cases with known pass rates (most
   reliable, some flaky, a few broken; the "new model" breaks some more), in a
   temp dir. Each epoch's outcome is a fixed function of (model, case, epoch),
   so a full run and a sequential one see the same outcome for every epoch
   both run, and their verdicts can be checked against each other exactly.

   - **real** (``--epochs`` K): the real ``harness eval`` path, serially: the old
     model in full and with ``--sequential``; the new model in full and with
     ``--sequential --baseline`` (the old full report). Printed: epochs run,
     wall time, and whether every case's pass/fail and compare status agree
     with the full run's (they must: the rule is exact).
   - **simulated** (k = 3, 5, 10): the same decision code the plugin calls
     (``harness.evals.sequential.stop_reason``), serially, over ``--seeds``
     draws of the outcomes: mean epochs run, beside the detection power at k.

Counts are the figures; wall times are this machine's, printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from detection_power import power_table  # noqa: E402

from harness.evals import EvalReport, Verdict, compare_reports, load_report  # noqa: E402
from harness.evals._stats import detectable_drop  # noqa: E402
from harness.evals.sequential import EpochTally, stop_reason  # noqa: E402

TEST_FILE = """
import json, os, random
from pathlib import Path
import pytest

RATES = json.loads(Path(__file__).with_name("rates.json").read_text())
MODEL = os.environ.get("BENCH_MODEL", "old")


@pytest.mark.eval
@pytest.mark.parametrize("case", range(len(RATES["old"])), ids=lambda i: f"c{i:03d}")
def test_case(case, harness_epoch):
    assert random.Random(f"{MODEL}-{case}-{harness_epoch}").random() < RATES[MODEL][case]
"""


def rates(cases: int) -> dict[str, list[float]]:
    """Old: 75% reliable, 10% at 90%, 7.5% at 70%, 5% at 50%, 2.5% broken. New: the same,
    but 5% of the reliable fall to 20% (regressions) and 5% to 90%."""
    old: list[float] = []
    for i in range(cases):
        share = i / cases
        old.append(
            1.0
            if share < 0.75
            else 0.9
            if share < 0.85
            else 0.7
            if share < 0.925
            else 0.5
            if share < 0.975
            else 0.0
        )
    new = list(old)
    for i in range(0, int(cases * 0.05)):
        new[i] = 0.2
    for i in range(int(cases * 0.05), int(cases * 0.10)):
        new[i] = 0.9
    return {"old": old, "new": new}


def outcome(model: str, case: int, epoch: int, rate: float, seed: str = "") -> bool:
    return random.Random(f"{seed}{model}-{case}-{epoch}").random() < rate


def simulate(
    table: dict[str, list[float]], epochs: int, seeds: int
) -> tuple[float, float, float, float]:
    """Mean epochs run: old sequential without a baseline, new sequential against a full
    old run (each its own draw), out of cases x epochs each."""
    runs_plain: list[int] = []
    runs_base: list[int] = []
    for seed in range(seeds):
        tag = f"sim{seed}:"
        plain = based = 0
        for case, (old_rate, new_rate) in enumerate(zip(table["old"], table["new"], strict=True)):
            old = [outcome("old", case, e, old_rate, tag) for e in range(1, epochs + 1)]
            plain += _ran(old, epochs, None, baseline=False)
            new = [outcome("new", case, e, new_rate, tag) for e in range(1, epochs + 1)]
            based += _ran(new, epochs, (sum(old), epochs), baseline=True)
        runs_plain.append(plain)
        runs_base.append(based)
    total = len(table["old"]) * epochs
    return (
        statistics.fmean(runs_plain),
        statistics.fmean(runs_base),
        total - statistics.fmean(runs_plain),
        total - statistics.fmean(runs_base),
    )


def _ran(outcomes: list[bool], epochs: int, old: tuple[int, int] | None, *, baseline: bool) -> int:
    passes = failures = 0
    for ran, passed in enumerate(outcomes):
        tally = EpochTally(passes, failures, 0, epochs)
        if stop_reason(tally, old, baseline=baseline) is not None:
            return ran
        passes += passed
        failures += not passed
    return epochs


def _eval(folder: Path, model: str, report: Path, *extra: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARNESS_")}
    env.update(BENCH_MODEL=model, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "harness", "eval", "--evals-dir", ".", "--report", str(report)),
            *("-p", "no:randomly", "-p", "no:cacheprovider", *extra),
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return time.perf_counter() - start


def _ran_rows(report: EvalReport) -> int:
    return sum(1 for row in report.rows if not row.stopped)


def _failing(report: EvalReport) -> dict[str, bool]:
    failing: dict[str, bool] = {}
    for row in report.rows:
        bad = row.verdict in (Verdict.FAIL, Verdict.ERROR)
        failing[row.scenario] = failing.get(row.scenario, False) or bad
    return failing


def _statuses(old: EvalReport, new: EvalReport) -> dict[str, str]:
    return {c.scenario: c.status.value for c in compare_reports(old, new).changes}


def real_runs(cases: int, epochs: int) -> list[str]:
    table = rates(cases)
    with tempfile.TemporaryDirectory(prefix="harness-seq-bench-") as tmp:
        folder = Path(tmp)
        (folder / "rates.json").write_text(json.dumps(table))
        (folder / "test_generated.py").write_text(TEST_FILE)
        (folder / "pytest.ini").write_text("[pytest]\n")
        k = ("--epochs", str(epochs))
        paths = {name: folder / f"{name}.json" for name in ("old", "old-seq", "new", "new-seq")}
        walls = {
            "old": _eval(folder, "old", paths["old"], *k),
            "old-seq": _eval(folder, "old", paths["old-seq"], *k, "--sequential"),
            # Both new-model runs compare with the baseline: like with like in wall time.
            "new": _eval(folder, "new", paths["new"], *k, "--baseline", str(paths["old"])),
            "new-seq": _eval(
                folder, "new", paths["new-seq"], *k, "--sequential", "--baseline", str(paths["old"])
            ),
        }
        reports = {name: load_report(path) for name, path in paths.items()}
    total = cases * epochs
    same_plain = _failing(reports["old"]) == _failing(reports["old-seq"])
    full_status = _statuses(reports["old"], reports["new"])
    seq_status = _statuses(reports["old"], reports["new-seq"])
    agree = full_status == seq_status and _failing(reports["new"]) == _failing(reports["new-seq"])
    counts = Counter(full_status.values())
    lines = [
        f"\nreal: {cases} generated cases x {epochs} epochs through `harness eval` (serial); "
        "new-model statuses in full: " + ", ".join(f"{n} {s}" for s, n in sorted(counts.items())),
        f"  {'run':<46} {'epochs run':>12} {'saved':>7} {'wall':>8}  verdicts as the full run",
    ]
    for name, label, same in (
        ("old", "old model, full", None),
        ("old-seq", "old model, --sequential", same_plain),
        ("new", "new model, full --baseline old (full)", None),
        ("new-seq", "new model, --sequential --baseline old (full)", agree),
    ):
        ran = _ran_rows(reports[name])
        verdict = "-" if same is None else ("identical" if same else "DIFFER")
        lines.append(
            f"  {label:<46} {ran:>5} / {total:<4} {1 - ran / total:>6.0%} "
            f"{walls[name]:>7.1f}s  {verdict}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--power", type=float, default=0.8)
    parser.add_argument("--simulate-only", action="store_true")
    args = parser.parse_args()
    print("\n".join(power_table(args.alpha, args.power, [1, 3, 5, 10])))

    table = rates(args.cases)
    print(
        f"\nside by side, k epochs: the committed suite's detectable drop (from 100%, per "
        f"case) beside sequential stopping on {args.cases} generated cases (simulated with the "
        f"plugin's decision code, mean of {args.seeds} draws; serial order)"
    )
    print(
        f"  {'k':>3}  {'detects/case':>12}  {'epochs':>7}  {'run: no baseline':>18}  "
        f"{'saved':>6}  {'run: with baseline':>18}  {'saved':>6}"
    )
    for k in (3, 5, 10):
        plain, based, _, _ = simulate(table, k, args.seeds)
        total = args.cases * k
        case = detectable_drop(1.0, k, k, args.alpha, args.power)
        shown = "none" if case is None else f"{case:.0%}"
        print(
            f"  {k:>3}  {shown:>12}  {total:>7}  {plain:>18.1f}  {1 - plain / total:>6.0%}  "
            f"{based:>18.1f}  {1 - based / total:>6.0%}"
        )
    print(
        "  no baseline: a case stops at its first failure (pass/fail certain); with a baseline "
        "also its compare status must be certain, so only clear regressions stop early"
    )
    if not args.simulate_only:
        print("\n".join(real_runs(args.cases, args.epochs)))


if __name__ == "__main__":
    main()
