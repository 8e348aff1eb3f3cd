"""What drop the committed suite's model-upgrade gate could detect, by epochs.

Run: ``python bench/detection_power.py`` (``--alpha 0.05 --power 0.8``;
``--epochs 1,3,5,10``). For each committed baseline in ``evals/baselines/`` (one
per provider/API) it counts the cases (a case: scenario, provider, model role,
test) and prints, for k epochs on each side of ``harness eval compare``:

- per case: the smallest fall from 100% (every old run passed) that k runs a
  side detect with the given power (one-sided Fisher exact at alpha, enumerated
  exactly; ``none``: no fall can be, even to 0%), and the runs a side a fall of
  one run in k (the smallest visible drop) would need;
- suite: the smallest fall of the suite's pooled pass rate, the case count times
  k runs a side (exact up to ``EXACT_MAX_RUNS`` pooled runs, else the
  continuity-corrected normal approximation, as the gate computes it).

It times nothing: the figures are the gate's own arithmetic, the same on any
machine.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from harness.evals._report import load_report
from harness.evals._stats import EXACT_MAX_RUNS, detectable_drop, epochs_needed
from harness.evals.aggregate import aggregate_rows

_BASELINES = Path(__file__).resolve().parent.parent / "evals" / "baselines"


def _drop(value: float | None) -> str:
    return "none" if value is None else f"{value:.0%}"


def power_table(alpha: float, power: float, epochs: list[int]) -> list[str]:
    """The table's lines: one block per committed baseline, a row per epoch count."""
    lines = [
        f"drop in pass rate detectable at {power:.0%} power, one-sided Fisher exact at "
        f"alpha {alpha:g}, from 100% (every old run passed); k runs a side"
    ]
    for path in sorted(_BASELINES.glob("*.json")):
        cases = len(aggregate_rows(load_report(path).rows))
        lines.append(f"\n{path.name}: {cases} case(s)")
        lines.append(
            f"  {'k':>3}  {'per case':>8}  {'needs for 1-in-k':>16}  {'suite (pooled)':>14}  method"
        )
        for k in epochs:
            case = detectable_drop(1.0, k, k, alpha, power)
            needs = epochs_needed(1.0, 1 / k, alpha, power) if k > 1 else None
            pooled = cases * k
            suite = detectable_drop(1.0, pooled, pooled, alpha, power)
            method = "exact" if pooled <= EXACT_MAX_RUNS else "normal approx."
            needs_text = "-" if needs is None else f"{needs} runs"
            lines.append(
                f"  {k:>3}  {_drop(case):>8}  {needs_text:>16}  {_drop(suite):>14}  {method}"
            )
    lines.append(
        "\nper case: a case's own fall that k runs a side catch; 1-in-k: runs a side to "
        "catch one failure in k; suite: a fall of the pooled rate of every case"
    )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--power", type=float, default=0.8)
    parser.add_argument("--epochs", default="1,3,5,10", help="comma-separated epoch counts")
    args = parser.parse_args()
    epochs = [int(k) for k in args.epochs.split(",")]
    print("\n".join(power_table(args.alpha, args.power, epochs)))


if __name__ == "__main__":
    main()
