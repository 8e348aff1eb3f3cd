"""Pass-rate statistics for repeated evals: Wilson intervals and a one-sided Fisher test.

Both are exact closed forms over small integers, so harness computes them itself
instead of pulling scipy into the runtime; the tests check them against
``scipy.stats`` over thousands of generated counts.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Interval", "fisher_drop_p", "wilson_interval"]

# The two-sided 95% normal quantile, to the precision scipy uses.
_Z95 = 1.959963984540054


@dataclass(frozen=True, slots=True)
class Interval:
    """A confidence interval for a proportion, as fractions in [0, 1]."""

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
    if runs == 0:
        return Interval(0.0, 1.0)  # no evidence: every rate is possible
    p = passes / runs
    z2 = z * z
    denominator = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / denominator
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / denominator
    # Exact at the ends, so 0/n reads 0 and n/n reads 100 despite float rounding.
    low = 0.0 if passes == 0 else max(0.0, centre - half)
    high = 1.0 if passes == runs else min(1.0, centre + half)
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


def _check_counts(passes: int, runs: int) -> None:
    if runs < 0 or not 0 <= passes <= runs:
        raise ValueError(f"pass counts must satisfy 0 <= passes <= runs, got {passes}/{runs}")
