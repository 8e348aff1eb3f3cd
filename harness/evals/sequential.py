"""Sequential stopping for repeated evals: stop a case's epochs once its verdict is certain.

``harness eval --epochs K --sequential`` runs a case's epochs one after another
and, before each, asks :func:`stop_reason` whether the epochs still to come
could change anything the run reports about the case. The rule is exact: it
enumerates every way the remaining epochs could go (each may pass, fail or be
skipped) and stops only when all of them lead to the same verdict. No
probability enters it, so no verdict a full run would give can flip.

What must be certain:

1. **Pass/fail.** A case fails the run (``harness eval`` exits 1, the table
   shows it, pass^K is 0) as soon as one of its runs fails or errors. Before a
   failure nothing is certain: one more failure would flip it. So a case whose
   runs all pass runs every epoch; a case that failed may stop.
2. **The compare status, with a baseline** (``--baseline REPORT``): for every
   reachable final count (P passes of R counted runs) the status
   ``harness eval compare`` would give the case against the baseline's
   ``a/n`` is the same, at the gate's settings (``GateSettings()``, as
   ``--baseline`` uses):

   - the baseline never ran the case: ``not run`` whatever happens;
   - ``judge_rates(a, n, P, R)`` is a regression, weaker or inconclusive: that;
   - otherwise (no drop) the rate moved (``a/n != P/R``): ``changed``;
   - otherwise the status hangs on facts other than the rate (trace shapes,
     tokens, durations), which no count predicts: never certain, never stopped.

Epochs still running on another worker, or not started, count as remaining;
only finished ones are evidence, so a parallel run may run more epochs than a
serial one, never fewer than the rule allows. Certainty is monotone: the finals
reachable with fewer epochs left are a subset, so a stopped case stays stopped.

What it gives up, by design: a stopped case's pass rate and pass^k are those of
the runs that ran (``3/4``, not ``3/10``), with the wider interval fewer runs
give; ``harness eval compare`` at other settings (``--alpha``, ``--power``),
or against another baseline, judges those runs and may call the case
inconclusive where a full run would have decided. Reports mark every epoch
that did not run (a skipped row with ``stopped``) and say why.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from harness.evals._gate import GateSettings, Status, judge_rates
from harness.evals._rows import AGENT_ROLE, EvalRow
from harness.evals.aggregate import aggregate_rows

__all__ = ["EpochTally", "final_status", "render_stops", "stop_reason"]


@dataclass(frozen=True, slots=True)
class EpochTally:
    """A case's finished epochs so far, out of ``planned``.

    Attributes:
        passes: epochs that passed.
        failures: epochs that failed or errored.
        skips: epochs skipped (no evidence either way), sequential stops included.
        planned: the epochs the run asked for (``--epochs``).
    """

    passes: int
    failures: int
    skips: int
    planned: int

    def __post_init__(self) -> None:
        if min(self.passes, self.failures, self.skips) < 0 or self.done > self.planned:
            raise ValueError(
                f"an epoch tally needs non-negative counts within the {self.planned} planned, "
                f"got {self.passes} pass(es), {self.failures} failure(s), {self.skips} skip(s)"
            )

    @property
    def done(self) -> int:
        return self.passes + self.failures + self.skips

    @property
    def remaining(self) -> int:
        """Epochs with no outcome yet: not started, or still running."""
        return self.planned - self.done


# The compare status of a final count, or None when the count alone does not fix it.
FinalStatus = Status | None


@functools.lru_cache(maxsize=65536)
def final_status(
    old: tuple[int, int] | None, passes: int, runs: int, settings: GateSettings
) -> FinalStatus:
    """What ``compare`` calls a case that ends at ``passes/runs`` against ``old``.

    ``old`` is the baseline's ``(passes, runs)`` of the case (None or no runs:
    the baseline lacks it). None when the status depends on more than the counts.
    """
    if old is None or old[1] == 0 or runs == 0:
        return Status.NOT_RUN
    verdict = judge_rates(old[0], old[1], passes, runs, settings)
    if verdict.status is not Status.SAME:
        return verdict.status
    if old[0] * runs != passes * old[1]:
        return Status.CHANGED  # the rate rose: compare notes it as a change
    return None


def stop_reason(
    tally: EpochTally,
    old: tuple[int, int] | None = None,
    *,
    baseline: bool = False,
    settings: GateSettings | None = None,
) -> str | None:
    """Why the case's remaining epochs need not run, or None while they might matter.

    ``baseline`` says a baseline was given (``old`` is then its counts of this
    case, None when it has none); without one only pass/fail must be certain.
    """
    if tally.remaining <= 0 or tally.failures == 0:
        return None  # nothing left, or a pass-only case: one failure would flip it
    ran = tally.passes + tally.failures
    why = (
        f"verdict certain after {ran} run(s) of {tally.planned} epochs: a run failed, so the "
        f"case fails (pass^{tally.planned} = 0) whatever the rest do"
    )
    if not baseline:
        return why
    status = _certain_status(tally, old, settings or GateSettings())
    if status is None:
        return None
    against = "the baseline lacks the case" if old is None else f"{old[0]}/{old[1]} before"
    return f"{why}, and compare says {status.value} at every outcome ({against})"


def _certain_status(
    tally: EpochTally, old: tuple[int, int] | None, settings: GateSettings
) -> Status | None:
    """The one status every reachable final count gives, else None."""
    counted = tally.passes + tally.failures
    seen: Status | None = None
    for more_passes in range(tally.remaining + 1):
        for more_failures in range(tally.remaining - more_passes + 1):
            status = final_status(
                old, tally.passes + more_passes, counted + more_passes + more_failures, settings
            )
            if status is None or (seen is not None and status is not seen):
                return None
            seen = status
    return seen


def render_stops(rows: Iterable[EvalRow], shown: int = 10) -> str:
    """Which cases stopped early and after how many runs, and the epochs saved.

    ``3 of 12 case(s) stopped early; 21 of 120 epochs not run (18% saved)``,
    then one line per stopped case (the first ``shown``).
    """
    cases = list(aggregate_rows(rows).values())
    planned = sum(len(runs.rows) for runs in cases)
    stopped = [runs for runs in cases if runs.stopped]
    saved = sum(runs.stopped for runs in stopped)
    share = f" ({saved / planned:.0%} saved)" if planned else ""
    lines = [
        f"sequential stopping: {len(stopped)} of {len(cases)} case(s) stopped early; "
        f"{saved} of {planned} epochs not run{share}"
    ]
    for runs in stopped[:shown]:
        role = "" if runs.role == AGENT_ROLE else f", {runs.role}"
        lines.append(
            f"  {runs.case} [{runs.provider}{role}]: stopped after {runs.runs} run(s) of "
            f"{len(runs.rows)} epochs ({runs.passes} passed)"
        )
    if len(stopped) > shown:
        lines.append(f"  and {len(stopped) - shown} more (the report's stopped rows)")
    return "\n".join(lines)
