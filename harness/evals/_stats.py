"""Pass-rate statistics for repeated evals: Wilson intervals, a one-sided Fisher
test, pass^k and its interval, the interval of a drop, and the power of the
Fisher test (what drop a comparison could see).

All are closed forms or finite sums over small integers, so harness computes them
itself instead of pulling scipy into the runtime; the tests check them against
``scipy.stats`` over thousands of generated counts.

Power is exact for up to ``EXACT_MAX_RUNS`` runs a side: every outcome of the two
binomials is enumerated and weighed by whether Fisher's test rejects it. Above
that (a suite's pooled runs) it is the normal approximation of the one-sided
two-proportion z-test with Yates's continuity correction, which tracks Fisher's
test within a few points there.
"""

from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass
from fractions import Fraction

__all__ = [
    "DEFAULT_POWER",
    "EXACT_MAX_RUNS",
    "Interval",
    "detectable_drop",
    "drop_interval",
    "drop_power",
    "epochs_needed",
    "fisher_drop_p",
    "pass_hat_k",
    "pass_hat_k_interval",
    "wilson_interval",
    "wilson_mean_interval",
]

# The two-sided 95% normal quantile, to the precision scipy uses.
_Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval, as fractions: in [0, 1] for a proportion, in [-1, 1]
    for the difference of two (:func:`drop_interval`)."""

    low: float
    high: float

    def render(self) -> str:
        """``[44–100]``: whole percentages."""
        return f"[{round(self.low * 100)}–{round(self.high * 100)}]"


# Pure functions of a few small integers, which a 10,000-case compare asks about
# 20,000 times (mostly 0/1 and 1/1): each answer is worked out once.
@functools.lru_cache(maxsize=4096)
def wilson_interval(passes: int, runs: int, z: float = _Z95) -> Interval:
    """The Wilson score interval of ``passes`` out of ``runs`` (95% by default).

    Unlike the normal approximation it stays inside [0, 1] and is not empty at
    0/n or n/n, which is where eval pass rates usually sit.
    """
    _check_counts(passes, runs)
    return _wilson(passes, runs, z)


def wilson_mean_interval(total: float, count: int, z: float = _Z95) -> Interval:
    """The Wilson score interval of the mean of ``count`` values in [0, 1] summing to ``total``.

    For 0/1 values it is :func:`wilson_interval`. For values in between (a case's
    pass^k when its runs are more than k) it stays valid and errs wide: a variable
    in [0, 1] with mean m has a variance of at most m(1 - m), the binomial's, which
    is the variance the Wilson interval assumes. The suite's pass^k is such a mean,
    with the cases as the sample (``harness.evals.reliability``).
    """
    if count < 0 or not -1e-9 <= total <= count + 1e-9:
        raise ValueError(
            f"a mean of values in [0, 1] needs 0 <= total <= count, got {total}/{count}"
        )
    return _wilson(min(max(total, 0.0), float(count)), count, z)


def _wilson(total: float, count: int, z: float) -> Interval:
    if count == 0:
        return Interval(0.0, 1.0)  # no evidence: every rate is possible
    p = total / count
    z2 = z * z
    denominator = 1 + z2 / count
    centre = (p + z2 / (2 * count)) / denominator
    half = z * math.sqrt(p * (1 - p) / count + z2 / (4 * count * count)) / denominator
    # Exact at the ends, so 0/n reads 0 and n/n reads 100 despite float rounding.
    low = 0.0 if total == 0 else max(0.0, centre - half)
    high = 1.0 if total == count else min(1.0, centre + half)
    return Interval(low, high)


@functools.lru_cache(maxsize=4096)
def fisher_drop_p(old_passes: int, old_runs: int, new_passes: int, new_runs: int) -> float:
    """One-sided Fisher exact p-value that the new pass rate is below the old one.

    The 2x2 table is ``[[old_passes, old_fails], [new_passes, new_fails]]``; with
    the margins fixed, the number of passes that fall in the old row is
    hypergeometric, and the p-value is the chance of at least as many as were
    seen (scipy's ``fisher_exact(table, alternative="greater")``). Computed with
    exact integers, so a tiny p-value is not lost to rounding.
    """
    _check_counts(old_passes, old_runs)
    _check_counts(new_passes, new_runs)
    total = old_runs + new_runs
    passes = old_passes + new_passes
    top = min(old_runs, passes)
    hits = sum(
        math.comb(passes, x) * math.comb(total - passes, old_runs - x)
        for x in range(old_passes, top + 1)
    )
    return float(Fraction(hits, math.comb(total, old_runs)))


def pass_hat_k(passes: int, runs: int, k: int) -> float:
    """pass^k: the chance that ``k`` runs drawn from these all pass (τ-bench's reliability).

    The unbiased estimator ``C(passes, k) / C(runs, k)``; pass^1 is the pass rate,
    and pass^runs is 1 only when every run passed.
    """
    _check_counts(passes, runs)
    if not 1 <= k <= runs:
        raise ValueError(f"pass^k needs 1 <= k <= runs, got k={k} for {runs} run(s)")
    return math.comb(passes, k) / math.comb(runs, k)


@functools.lru_cache(maxsize=4096)
def pass_hat_k_interval(passes: int, runs: int, k: int, z: float = _Z95) -> Interval:
    """The 95% interval of a case's pass^k: its Wilson interval of the pass rate, to the k.

    pass^k of a case whose runs pass with probability p is p**k, which rises with p
    on [0, 1]: the interval [low**k, high**k] covers p**k exactly when [low, high]
    covers p, so it keeps the Wilson interval's coverage. The estimate
    (:func:`pass_hat_k`, unbiased) can sit below low**k (3 of 4 runs passed:
    pass^4 is 0, since not every run passed, while p**4 is likely above 0.3**4);
    the interval is widened to hold it, which only adds coverage.
    """
    estimate = pass_hat_k(passes, runs, k)
    rate = wilson_interval(passes, runs, z)
    return Interval(min(rate.low**k, estimate), max(rate.high**k, estimate))


def drop_interval(
    old: float, old_interval: Interval, new: float, new_interval: Interval
) -> Interval:
    """The 95% interval of ``old - new`` from the two sides' own 95% intervals.

    MOVER (Zou & Donner's method of variance estimates recovery; with Wilson
    intervals it is Newcombe's hybrid score interval for a difference of two
    proportions): each end of the difference takes the distance from each
    estimate to the end of its interval that pushes the difference that way.
    It holds for any estimate with a valid interval, so the same rule serves a
    case's pass^k (its Wilson interval to the k) and a suite's (Wilson over
    cases). It assumes the two sides independent; the same cases run on both
    sides correlate them positively, which only makes it wider than it needs
    to be: a gate that errs towards "not a regression".
    """
    difference = old - new
    low = difference - math.hypot(old - old_interval.low, new_interval.high - new)
    high = difference + math.hypot(old_interval.high - old, new - new_interval.low)
    return Interval(max(-1.0, low), min(1.0, high))


DEFAULT_POWER = 0.8
# Up to this many runs a side, power is summed over every outcome (at most 41x41
# Fisher p-values, each cached); above it, the normal approximation.
EXACT_MAX_RUNS = 40


@functools.lru_cache(maxsize=1024)
def _rejected(old_runs: int, new_runs: int, alpha: float) -> tuple[tuple[int, int], ...]:
    """For each old pass count x, the largest new pass count y whose drop Fisher's test
    calls significant at ``alpha`` (-1: none). The p-value rises with y, so every y up
    to that bound is rejected too."""
    bounds = []
    for x in range(old_runs + 1):
        top = -1
        for y in range(new_runs + 1):
            if fisher_drop_p(x, old_runs, y, new_runs) >= alpha:
                break
            top = y
        bounds.append((x, top))
    return tuple(bounds)


def _binomial(runs: int, rate: float) -> list[float]:
    return [math.comb(runs, k) * rate**k * (1 - rate) ** (runs - k) for k in range(runs + 1)]


def drop_power(old_rate: float, drop: float, old_runs: int, new_runs: int, alpha: float) -> float:
    """The chance that the gate's Fisher test calls a drop from ``old_rate`` to
    ``old_rate - drop`` significant, with ``old_runs`` and ``new_runs`` runs a side.

    Exact (every outcome enumerated) up to ``EXACT_MAX_RUNS`` runs a side; above,
    the continuity-corrected normal approximation (``_normal_power``).
    """
    new_rate = old_rate - drop
    if not (0 <= new_rate <= old_rate <= 1) or old_runs < 1 or new_runs < 1:
        raise ValueError(
            f"power needs 0 <= old rate - drop <= old rate <= 1 and runs >= 1, got rate "
            f"{old_rate}, drop {drop}, runs {old_runs}/{new_runs}"
        )
    if max(old_runs, new_runs) > EXACT_MAX_RUNS:
        return _normal_power(old_rate, new_rate, old_runs, new_runs, alpha)
    old, new = _binomial(old_runs, old_rate), _binomial(new_runs, new_rate)
    power = 0.0
    for x, top in _rejected(old_runs, new_runs, alpha):
        if top >= 0:
            power += old[x] * math.fsum(new[: top + 1])
    return min(1.0, power)


def _normal_power(old_rate: float, new_rate: float, n1: int, n2: int, alpha: float) -> float:
    """Power of the one-sided pooled two-proportion z-test with Yates's continuity
    correction, the normal approximation closest to Fisher's test (within a few
    points from 40 runs a side, and slightly conservative)."""
    normal = statistics.NormalDist()
    pooled = (old_rate * n1 + new_rate * n2) / (n1 + n2)
    null_sd = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    true_sd = math.sqrt(old_rate * (1 - old_rate) / n1 + new_rate * (1 - new_rate) / n2)
    shift = old_rate - new_rate - (1 / n1 + 1 / n2) / 2 - normal.inv_cdf(1 - alpha) * null_sd
    if old_rate <= new_rate or null_sd == 0:
        return 0.0
    if true_sd == 0:  # 1 -> 0: every run flips, the test rejects whenever it can
        return 1.0 if shift > 0 else 0.0
    return normal.cdf(shift / true_sd)


@functools.lru_cache(maxsize=4096)
def detectable_drop(
    old_rate: float, old_runs: int, new_runs: int, alpha: float, power: float = DEFAULT_POWER
) -> float | None:
    """The smallest drop from ``old_rate`` the comparison detects with ``power``.

    None when no drop can be: even a fall to 0 is seen less often than ``power``
    (one run a side never is: Fisher's smallest p-value there is 0.5). Power rises
    with the drop, so a bisection finds it (to 1e-4).
    """
    if old_rate <= 0 or drop_power(old_rate, old_rate, old_runs, new_runs, alpha) < power:
        return None
    low, high = 0.0, old_rate
    while high - low > 1e-4:
        middle = (low + high) / 2
        if drop_power(old_rate, middle, old_runs, new_runs, alpha) >= power:
            high = middle
        else:
            low = middle
    return high


@functools.lru_cache(maxsize=4096)
def epochs_needed(
    old_rate: float,
    drop: float,
    alpha: float,
    power: float = DEFAULT_POWER,
    start: int = 1,
    limit: int = 10_000,
) -> int | None:
    """The fewest runs a side (from ``start``) at which a drop of ``drop`` from
    ``old_rate`` is detected with ``power``; None when ``limit`` runs do not suffice.

    Exact power is not monotone in the runs (the test is discrete), so the answer
    is the first count from which it stays above ``power``: through the exact
    range and past the switch to the approximation, which rises with the runs.
    """
    if drop <= 0:
        return None

    def enough(runs: int) -> bool:
        return drop_power(old_rate, drop, runs, runs, alpha) >= power

    exact = [n for n in range(start, EXACT_MAX_RUNS + 1) if not enough(n)]
    first = max(start, exact[-1] + 1 if exact else start)
    # The approximation rises with the runs, but may start below the last exact
    # count: the answer must hold across the switch too.
    approximate = max(first, EXACT_MAX_RUNS + 1)
    if first <= EXACT_MAX_RUNS and enough(approximate):
        return first
    if not enough(limit):
        return None
    low, high = approximate - 1, limit  # not enough at low (or below the range), enough at high
    while high - low > 1:
        middle = (low + high) // 2
        if enough(middle):
            high = middle
        else:
            low = middle
    return high


def _check_counts(passes: int, runs: int) -> None:
    if runs < 0 or not 0 <= passes <= runs:
        raise ValueError(f"pass counts must satisfy 0 <= passes <= runs, got {passes}/{runs}")
