"""The compare gate: is a case's new pass rate a regression, weaker, or the same?

- **regression**: the drop is significant (one-sided Fisher exact, p < alpha), or
  the old runs all passed and the rate fell by at least ``max_drop`` (a
  deterministic flip: 1/1 -> 0/1, 3/3 -> 1/3, which no test on so few runs can
  call significant);
- **weaker**: any other drop, reported with its p-value;
- a case only one report ran is **not run**, never a regression;
- durations compare with a relative and an absolute threshold, and count only
  when the gate is asked to (``slower``): the first test of a process carries
  the SDK import, so timing alone is noise.

Each ``--fail-on`` level fails on its own finding and every graver one, with an
exit code per finding: regression 1, weaker 3, change 4, slower 5 (2 is a usage
error, as everywhere in the CLI).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from harness.evals.stats import fisher_drop_p

__all__ = ["FailOn", "GateSettings", "RateVerdict", "Status", "judge_rates"]


class Status(StrEnum):
    """What happened to one case, gravest first."""

    REGRESSION = "regression"
    WEAKER = "weaker"
    CHANGED = "changed"
    SLOWER = "slower"
    SAME = "same"
    NOT_RUN = "not run"

    @property
    def exit_code(self) -> int:
        return _EXIT_CODES.get(self, 0)


_EXIT_CODES = {Status.REGRESSION: 1, Status.WEAKER: 3, Status.CHANGED: 4, Status.SLOWER: 5}


class FailOn(StrEnum):
    """How much a ``--fail-on`` gate tolerates; each level includes the graver ones."""

    REGRESSION = "regression"
    WEAKER = "weaker"
    CHANGE = "change"
    SLOWER = "slower"
    NEVER = "never"

    @property
    def failing(self) -> tuple[Status, ...]:
        order = (Status.REGRESSION, Status.WEAKER, Status.CHANGED, Status.SLOWER)
        depth = {
            FailOn.REGRESSION: 1,
            FailOn.WEAKER: 2,
            FailOn.CHANGE: 3,
            FailOn.SLOWER: 4,
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

    def __post_init__(self) -> None:
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha must be between 0 and 1, got {self.alpha}")
        if not 0 < self.max_drop <= 1:
            raise ValueError(f"max drop must be in (0, 1], got {self.max_drop}")

    def slower(self, old_s: float, new_s: float) -> bool:
        """New takes longer by more than the ratio and the absolute minimum together."""
        extra = new_s - old_s
        return old_s > 0 and extra > old_s * self.slower_ratio and extra >= self.slower_min_s


@dataclass(frozen=True, slots=True)
class RateVerdict:
    """The gate's reading of one pass-rate change."""

    status: Status  # REGRESSION, WEAKER or SAME (no drop)
    p_value: float
    drop: float
    reason: str


def judge_rates(
    old_passes: int, old_runs: int, new_passes: int, new_runs: int, settings: GateSettings
) -> RateVerdict:
    """Classify the move from ``old_passes/old_runs`` to ``new_passes/new_runs``."""
    p = fisher_drop_p(old_passes, old_runs, new_passes, new_runs)
    drop = old_passes / old_runs - new_passes / new_runs
    if drop <= 0:
        return RateVerdict(Status.SAME, p, drop, "")
    if p < settings.alpha:
        reason = f"significant drop: p={p:.3g} < alpha {settings.alpha:g} (one-sided Fisher exact)"
        return RateVerdict(Status.REGRESSION, p, drop, reason)
    if old_passes == old_runs and drop >= settings.max_drop - 1e-12:
        reason = (
            f"every old run passed and the rate fell by {drop:.0%} >= max drop "
            f"{settings.max_drop:.0%} (p={p:.3g})"
        )
        return RateVerdict(Status.REGRESSION, p, drop, reason)
    reason = f"weaker: down {drop:.0%}, not significant (p={p:.3g} >= alpha {settings.alpha:g})"
    return RateVerdict(Status.WEAKER, p, drop, reason)
