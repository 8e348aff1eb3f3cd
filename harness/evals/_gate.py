"""The compare gate: is a case's new pass rate a regression, weaker, inconclusive, or the same?

- **regression**: the drop is significant (one-sided Fisher exact, p < alpha), or
  the old runs all passed and the rate fell by at least ``max_drop`` (a
  deterministic flip: 1/1 -> 0/1, 3/3 -> 1/3, which no test on so few runs can
  call significant), or, with 2 or more runs a side, pass^k (k = the runs both
  sides have) fell beyond the (1 - alpha) interval of its fall
  (``reliability.judge_pass_k``);
- **weaker**: any other drop at least as large as the smallest drop these runs
  detect with 80% power (``stats.detectable_drop``), reported with its p-value;
- **inconclusive**: a smaller drop, which these runs could not have told from
  noise: reported with the epochs a side that would detect it, never as weaker
  or the same;
- a case only one report ran is **not run**, never a regression;
- durations compare with a relative and an absolute threshold, and count only
  when the gate is asked to (``slower``): the first test of a process carries
  the SDK import, so timing alone is noise.

Each ``--fail-on`` level fails on its own finding and every graver one, with an
exit code per finding: regression 1, weaker 3, inconclusive 6, change 4, slower 5
(2 is a usage error, as everywhere in the CLI). ``--fail-on weaker`` also fails on
an inconclusive drop: it failed on every drop before the gate knew its power, and
a gate must not loosen by itself; ``regression`` does not.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from harness.evals._stats import DEFAULT_POWER, detectable_drop, epochs_needed, fisher_drop_p
from harness.evals.reliability import MIN_K, PassKDrop, case_pass_k, judge_pass_k

__all__ = [
    "FailOn",
    "GateSettings",
    "RateVerdict",
    "Status",
    "judge_rates",
    "render_needs",
    "render_points",
]


class Status(StrEnum):
    """What happened to one case, gravest first."""

    REGRESSION = "regression"
    WEAKER = "weaker"
    INCONCLUSIVE = "inconclusive"
    CHANGED = "changed"
    SLOWER = "slower"
    SAME = "same"
    NOT_RUN = "not run"

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(self, 0)


_EXIT_CODES = {
    Status.REGRESSION: 1,
    Status.WEAKER: 3,
    Status.INCONCLUSIVE: 6,
    Status.CHANGED: 4,
    Status.SLOWER: 5,
}


class FailOn(StrEnum):
    """How much a ``--fail-on`` gate tolerates; each level includes the graver ones."""

    REGRESSION = "regression"
    WEAKER = "weaker"
    CHANGE = "change"
    SLOWER = "slower"
    NEVER = "never"

    @property
    def failing(self) -> tuple[Status, ...]:
        order = (
            Status.REGRESSION,
            Status.WEAKER,
            Status.INCONCLUSIVE,
            Status.CHANGED,
            Status.SLOWER,
        )
        depth = {
            FailOn.REGRESSION: 1,
            FailOn.WEAKER: 3,
            FailOn.CHANGE: 4,
            FailOn.SLOWER: 5,
            FailOn.NEVER: 0,
        }
        return order[: depth[self]]


@dataclass(frozen=True, slots=True)
class GateSettings:
    """Thresholds of the gate (the CLI's ``--alpha``, ``--max-drop``, ...)."""

    alpha: float = 0.05
    max_drop: float = 0.5
    slower_ratio: float = 0.5
    slower_min_s: float = 0.5
    # The power at which a drop counts as detectable (below it: inconclusive).
    power: float = DEFAULT_POWER

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")
        if not 0 < self.max_drop <= 1:
            raise ValueError(f"max drop must be in (0, 1], got {self.max_drop}")
        if not 0 < self.power < 1:
            raise ValueError(f"power must be between 0 and 1, got {self.power}")

    def slower(self, old_s: float, new_s: float) -> bool:
        """New takes longer by more than the ratio and the absolute minimum together."""
        extra = new_s - old_s
        return old_s > 0 and extra > old_s * self.slower_ratio and extra >= self.slower_min_s


@dataclass(frozen=True, slots=True)
class RateVerdict:
    """The gate's reading of one pass-rate change."""

    status: Status  # REGRESSION, WEAKER, INCONCLUSIVE or SAME (no drop)
    p_value: float
    drop: float
    reason: str
    # The smallest drop from the old rate these runs detect at the gate's power;
    # None when none can be (1 or 2 runs a side, or an old rate of 0).
    detectable: float | None = None
    # For an inconclusive drop: the runs a side that would detect it (None: > 10,000).
    needs_epochs: int | None = None
    # pass^k before and after at the runs both sides have (None: fewer than 2 a side).
    pass_k: PassKDrop | None = None


def judge_rates(
    old_passes: int, old_runs: int, new_passes: int, new_runs: int, settings: GateSettings
) -> RateVerdict:
    """Classify the move from ``old_passes/old_runs`` to ``new_passes/new_runs``."""
    p = fisher_drop_p(old_passes, old_runs, new_passes, new_runs)
    old_rate = old_passes / old_runs
    drop = old_rate - new_passes / new_runs
    alpha, power = settings.alpha, settings.power
    detectable = detectable_drop(old_rate, old_runs, new_runs, alpha, power)
    reliable = _pass_k(old_passes, old_runs, new_passes, new_runs, 1 - alpha)
    if drop <= 0:
        return RateVerdict(Status.SAME, p, drop, "", detectable, pass_k=reliable)
    if p < alpha:
        reason = f"significant drop: p={p:.3g} < alpha {alpha:g} (one-sided Fisher exact)"
        return RateVerdict(Status.REGRESSION, p, drop, reason, detectable, pass_k=reliable)
    if old_passes == old_runs and drop >= settings.max_drop - 1e-12:
        reason = (
            f"every old run passed and the rate fell by {drop:.0%} >= max drop "
            f"{settings.max_drop:.0%} (p={p:.3g})"
        )
        return RateVerdict(Status.REGRESSION, p, drop, reason, detectable, pass_k=reliable)
    if reliable is not None and reliable.regression:
        return RateVerdict(Status.REGRESSION, p, drop, reliable.reason, detectable, pass_k=reliable)
    if detectable is None or drop < detectable - 1e-12:
        needs = epochs_needed(old_rate, drop, alpha, power)
        seen = (
            "no drop is detectable"
            if detectable is None
            else f"only a drop of {render_points(detectable)} or more is detectable"
        )
        reason = (
            f"{render_needs(needs)}: down {drop:.0%} (p={p:.3g}); with {old_runs} old and "
            f"{new_runs} new run(s) {seen} at {power:.0%} power"
        )
        return RateVerdict(Status.INCONCLUSIVE, p, drop, reason, detectable, needs, reliable)
    reason = f"weaker: down {drop:.0%}, not significant (p={p:.3g} >= alpha {alpha:g})"
    return RateVerdict(Status.WEAKER, p, drop, reason, detectable, pass_k=reliable)


def _pass_k(
    old_passes: int, old_runs: int, new_passes: int, new_runs: int, level: float
) -> PassKDrop | None:
    """pass^k at the runs both sides have, like with like (pass^k falls as k grows),
    with intervals at ``level`` (1 - alpha: 95% at the default alpha)."""
    k = min(old_runs, new_runs)
    if k < MIN_K:
        return None
    old = case_pass_k(old_passes, old_runs, k, level)
    return judge_pass_k(old, case_pass_k(new_passes, new_runs, k, level))


def render_points(drop: float) -> str:
    """A detectable drop in whole percentage points, rounded up: ``84%`` for 0.8314,
    since a drop of 83 points would not quite be detected."""
    return f"{math.ceil(drop * 100 - 1e-9)}%"


def render_needs(needs: int | None) -> str:
    """``inconclusive (needs ≥ 19 epochs)``: the verdict as the reader sees it."""
    if needs is None:
        return "inconclusive (needs > 10000 epochs)"
    return f"inconclusive (needs ≥ {needs} epochs)"
