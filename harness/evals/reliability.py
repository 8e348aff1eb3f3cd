"""Reliability: pass^k of a case and of the suite, with intervals, and when a fall is real.

pass@1 is how often one run passes; pass^k (τ-bench) is the chance that k runs
in a row all pass: the reliability a user meets who asks the same thing k times.
An agent at 80% pass@1 has a pass^5 of 33%.

**A case** (its epochs): pass^k is the unbiased estimate ``C(passes, k) /
C(runs, k)`` and its interval the Wilson interval of the pass rate to the k
(``stats.pass_hat_k_interval``).

**The suite**: the mean of its cases' pass^k at one k, the largest every case
reached (the fewest runs of any case), so no case is counted at a k it never
ran. Its interval is over cases, not runs: a Wilson interval of the mean of
the cases' pass^k values, each in [0, 1] (``stats.wilson_mean_interval``).
Cases, not runs, because pass^k belongs to a case: epochs of one case share
its prompt and its difficulty, so pooling them would read a suite of one
always-failing and one always-passing case as two cases at 50%, and its pass^5
as 3% where half the tasks are done every time. The cases are the sample of
tasks; the interval says how far the next such suite could land.

**A fall**: the interval of old minus new (``stats.drop_interval``, MOVER from
the two sides' intervals), at the gate's level 1 - alpha (95% at the default
alpha 0.05, the intervals every table shows). When it lies wholly above zero,
the fall is beyond what the intervals allow by chance: a regression. That is a
one-sided test at alpha / 2, stricter than the Fisher test on the rate, since
the intervals it stands on are approximate. Only from k = 2: pass^1 is the pass
rate, which ``gate.judge_rates`` already judges with Fisher's exact test.
"""

from __future__ import annotations

import functools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harness.evals._stats import (
    Interval,
    drop_interval,
    pass_hat_k,
    pass_hat_k_interval,
    wilson_mean_interval,
)

__all__ = [
    "PassK",
    "PassKDrop",
    "SuitePassK",
    "SuitePassKDrop",
    "case_pass_k",
    "compare_suites",
    "judge_pass_k",
    "render_drop",
    "suite_pass_k",
    "z_of",
]

# The smallest k at which pass^k says more than the pass rate.
MIN_K = 2
LEVEL = 0.95  # of every interval shown


@functools.lru_cache(maxsize=64)
def z_of(level: float) -> float:
    """The two-sided normal quantile of a confidence ``level`` (1.96 for 0.95)."""
    if not 0 < level < 1:
        raise ValueError(f"a confidence level is between 0 and 1, got {level}")
    return statistics.NormalDist().inv_cdf(1 - (1 - level) / 2)


@dataclass(frozen=True, slots=True)
class PassK:
    """pass^k at one k, with its 95% interval."""

    k: int
    value: float
    interval: Interval
    level: float = LEVEL

    def render(self) -> str:
        """``pass^5 60% [31–83]``."""
        return f"pass^{self.k} {self.value:.0%} {self.interval.render()}"

    def to_json(self) -> dict[str, Any]:
        low, high = self.interval.low, self.interval.high
        return {
            "k": self.k,
            "value": round(self.value, 4),
            "interval": [round(low, 4), round(high, 4)],
        }


def case_pass_k(passes: int, runs: int, k: int, level: float = LEVEL) -> PassK:
    """pass^k of one case from its ``passes`` out of ``runs`` (1 <= k <= runs)."""
    interval = pass_hat_k_interval(passes, runs, k, z_of(level))
    return PassK(k, pass_hat_k(passes, runs, k), interval, level)


@dataclass(frozen=True, slots=True)
class SuitePassK:
    """The suite's pass@1 and pass^k: means over its cases, with intervals over cases."""

    cases: int
    pass_at_1: PassK
    pass_k: PassK

    def render(self) -> str:
        """``mean over 10 case(s): pass@1 92% [60–99], pass^5 70% [40–89]``."""
        at_1 = self.pass_at_1
        return (
            f"mean over {self.cases} case(s): pass@1 {at_1.value:.0%} {at_1.interval.render()}, "
            f"{self.pass_k.render()}"
        )

    def to_json(self) -> dict[str, Any]:
        at_1, at_k = self.pass_at_1.to_json(), self.pass_k.to_json()
        return {
            "cases": self.cases,
            "k": self.pass_k.k,
            "pass_at_1": at_1["value"],
            "pass_at_1_interval": at_1["interval"],
            "pass_hat_k": at_k["value"],
            "pass_hat_k_interval": at_k["interval"],
            "interval_over": "cases",
        }


def suite_pass_k(
    counts: Sequence[tuple[int, int]], k: int | None = None, level: float = LEVEL
) -> SuitePassK | None:
    """The suite's pass@1 and pass^k over cases of ``(passes, runs)``.

    Cases with no counted run are left out; None when none is left. ``k``
    defaults to the fewest runs of any case (every case reached it).
    """
    ran = [(passes, runs) for passes, runs in counts if runs]
    if not ran:
        return None
    k = min(runs for _, runs in ran) if k is None else k
    at_1 = sum(passes / runs for passes, runs in ran)
    at_k = sum(pass_hat_k(passes, runs, k) for passes, runs in ran)
    z = z_of(level)
    return SuitePassK(
        len(ran),
        PassK(1, at_1 / len(ran), wilson_mean_interval(at_1, len(ran), z), level),
        PassK(k, at_k / len(ran), wilson_mean_interval(at_k, len(ran), z), level),
    )


@dataclass(frozen=True, slots=True)
class PassKDrop:
    """pass^k before and after at one k, the 95% interval of the fall, and the verdict."""

    old: PassK
    new: PassK
    drop: Interval
    """Of old minus new: above zero throughout means it fell."""

    @property
    def k(self) -> int:
        return self.old.k

    @property
    def regression(self) -> bool:
        """The fall is beyond its interval: even its low end is a fall (k >= 2 only)."""
        return self.k >= MIN_K and self.drop.low > 1e-12

    @property
    def reason(self) -> str:
        """The clear line: what fell, by how much, and whether that is beyond chance."""
        verdict = (
            "beyond chance: a regression"
            if self.regression
            else "within chance"
            if self.k >= MIN_K
            else "(pass^1 is the pass rate, judged by Fisher's test)"
        )
        return (
            f"pass^{self.k} {self.old.value:.0%} {self.old.interval.render()} -> "
            f"{self.new.value:.0%} {self.new.interval.render()}: down "
            f"{self.old.value - self.new.value:.0%}, {self.old.level * 100:.4g}% interval "
            f"{render_drop(self.drop)}, "
            f"{verdict}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "old": self.old.value,
            "new": self.new.value,
            "old_interval": [self.old.interval.low, self.old.interval.high],
            "new_interval": [self.new.interval.low, self.new.interval.high],
            "drop_interval": [self.drop.low, self.drop.high],
            "regression": self.regression,
        }


def judge_pass_k(old: PassK, new: PassK) -> PassKDrop:
    """The fall from ``old`` to ``new`` (the same k) with its 95% interval."""
    if old.k != new.k or old.level != new.level:
        raise ValueError(
            f"pass^k compares like with like: k={old.k} at {old.level:g} against k={new.k} "
            f"at {new.level:g}"
        )
    return PassKDrop(old, new, drop_interval(old.value, old.interval, new.value, new.interval))


@dataclass(frozen=True, slots=True)
class SuitePassKDrop:
    """The suite's pass^k before and after, over the cases both sides ran, at one k."""

    old: SuitePassK
    new: SuitePassK
    verdict: PassKDrop

    @property
    def regression(self) -> bool:
        return self.verdict.regression

    @property
    def reason(self) -> str:
        return (
            f"suite pass^{self.verdict.k} over {self.old.cases} case(s) (interval over cases): "
            f"{self.verdict.reason.partition(' ')[2]}"
        )

    def to_json(self) -> dict[str, Any]:
        return {**self.verdict.to_json(), "cases": self.old.cases, "interval_over": "cases"}


def compare_suites(
    pairs: Sequence[tuple[tuple[int, int], tuple[int, int]]], level: float = LEVEL
) -> SuitePassKDrop | None:
    """The suite's pass^k fall over cases both sides ran, ``((old passes, old runs),
    (new passes, new runs))`` each, at the fewest runs of any case on either side,
    with intervals at ``level``.

    None when no case ran on both sides, or when some case ran once (k = 1: the
    pass rate, which the per-case gate and the pooled power line already cover).
    """
    both = [(old, new) for old, new in pairs if old[1] and new[1]]
    if not both:
        return None
    k = min(min(old[1], new[1]) for old, new in both)
    if k < MIN_K:
        return None
    old = suite_pass_k([o for o, _ in both], k, level)
    new = suite_pass_k([n for _, n in both], k, level)
    assert old is not None and new is not None  # every case ran on both sides
    return SuitePassKDrop(old, new, judge_pass_k(old.pass_k, new.pass_k))


def render_drop(drop: Interval) -> str:
    """``[+12, +66]`` points: signed, since a drop's interval may reach below zero
    (a tenth of a point near zero, so a regression never reads ``+0``)."""

    def points(value: float) -> str:
        shown = value * 100
        return f"{shown:+.1f}" if 0 < abs(shown) < 1 else f"{shown:+.0f}"

    return f"[{points(drop.low)}, {points(drop.high)}]"
