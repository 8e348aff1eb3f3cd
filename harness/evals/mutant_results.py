"""What ``harness eval --mutants`` found: one result per mutant, summaries per eval.

A mutant is *killed* only when the eval fails on an assertion (``assert``,
``pytest.fail``, a trace assertion). A run that asked for more responses than
the mutant held stops with a provider error; if the eval then fails, the mutant
is killed but labelled ``exhausted``, so a reader sees that the kill came from
the shortened sequence. A crash of the eval (any other exception, a fixture
error) is ``error``: neither killed nor survived.

Every eval also runs its unmutated sequence (the ``original`` control) through
the same positional replay. If the control fails, the eval fails for a reason
that is not a mutation (it depends on request matching, or the replay order of
concurrent calls is not stable), so its kills prove nothing: ``control failed``.
An eval that kills some mutants but fewer than ``min_kill_rate`` of them (0.5 by
default) is ``weak``: it fails on a few perturbations and misses most.

A survivor whose run asked for no model response at all (``served`` 0 of the
``available`` ones) is *inert*: the mutation changed nothing the eval could
observe, so it says nothing of the eval's strength. The mutation score (kills
over kills and survivors, with a Wilson interval) leaves inert mutants out, and
names them; results of reports that did not record ``available`` are never
inert.

Request mutants (``harness.evals.request_mutants``: a configuration changed,
the answers kept) are scored apart, in ``EvalMutants.requests``: they test
whether an eval checks what was sent, a question of its own, so they enter
neither the kill rate, the status nor the mutation score; the table gives them
a line of their own.

Tool-result mutants (``harness.evals.tool_result_mutants``: an MCP tool's
result emptied, failed or cut) are scored with the model-response mutants, and
also kept in ``EvalMutants.tools`` for a line of their own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from harness.evals._stats import Interval, wilson_interval
from harness.evals.provenance import Source
from harness.evals.request_mutants import is_request_operator
from harness.evals.tool_result_mutants import is_tool_result_operator

__all__ = [
    "CONTROL",
    "DEFAULT_MIN_KILL_RATE",
    "EvalMutants",
    "MutantOutcome",
    "MutantResult",
    "MutantStatus",
    "MutationScore",
    "mutation_score",
    "summarize_mutants",
]

CONTROL = "original"
DEFAULT_MIN_KILL_RATE = 0.5


class MutantOutcome(StrEnum):
    KILLED = "killed"
    EXHAUSTED = "exhausted"
    SURVIVED = "survived"
    ERROR = "error"
    PASS = "pass"  # the control passed, as it must
    FAIL = "fail"  # the control failed
    NOT_MUTATED = "not_mutated"  # no cassette to derive mutants from


class MutantStatus(StrEnum):
    OK = "ok"
    WEAK = "weak"
    CANNOT_FAIL = "cannot fail"
    CONTROL_FAILED = "control failed"
    NOT_MUTATED = "not mutated"


class MutantResult(BaseModel):
    """One eval run against one mutant (or the ``original`` control)."""

    model_config = ConfigDict(frozen=True)

    eval_nodeid: str
    scenario: str
    provider: str
    model: str
    source: Source = Source.UNKNOWN
    mutant: str
    operator: str
    order: int = 0
    description: str = ""
    outcome: MutantOutcome
    message: str = ""
    served: int = 0
    available: int = 0

    @property
    def inert(self) -> bool:
        """A survivor whose run took none of the responses the mutant held: nothing
        the eval could observe changed."""
        return (
            self.mutant != CONTROL
            and self.outcome is MutantOutcome.SURVIVED
            and self.served == 0
            and self.available > 0
        )


@dataclass(frozen=True, slots=True)
class EvalMutants:
    """How one eval (one node id) fared against its mutants."""

    eval_nodeid: str
    scenario: str
    target: str
    source: Source
    status: MutantStatus
    total: int
    killed: int
    exhausted: int
    errors: tuple[MutantResult, ...]
    survivors: tuple[MutantResult, ...]
    control: MutantResult | None
    # The survivors that changed nothing observable (a subset of ``survivors``).
    inert: tuple[MutantResult, ...] = ()
    # The request (configuration) mutants, scored apart from the rest.
    requests: tuple[MutantResult, ...] = ()
    # The tool-result (MCP) mutants: scored with the rest, and listed apart too.
    tools: tuple[MutantResult, ...] = ()

    @property
    def kill_rate(self) -> float:
        return self.killed / self.total if self.total else 0.0

    @property
    def proves_little(self) -> bool:
        """What every ``--mutants`` run refuses: an eval that cannot fail, barely fails or
        fails anyway."""
        return self.status in (
            MutantStatus.CANNOT_FAIL,
            MutantStatus.CONTROL_FAILED,
            MutantStatus.WEAK,
        )

    @property
    def failing(self) -> bool:
        """What ``--fail-on survivors`` refuses: survivors, or an eval that proves little."""
        return bool(self.survivors) or self.proves_little


def _status(
    control: MutantResult | None, mutants: list[MutantResult], killed: int, min_kill_rate: float
) -> MutantStatus:
    if control is not None and control.outcome is MutantOutcome.NOT_MUTATED:
        return MutantStatus.NOT_MUTATED
    if control is None or control.outcome is not MutantOutcome.PASS:
        return MutantStatus.CONTROL_FAILED
    if killed == 0:
        return MutantStatus.CANNOT_FAIL  # also when no mutant applied: nothing shows it can fail
    if killed < min_kill_rate * len(mutants):
        return MutantStatus.WEAK
    return MutantStatus.OK


def summarize_mutants(
    results: Iterable[MutantResult], min_kill_rate: float = DEFAULT_MIN_KILL_RATE
) -> list[EvalMutants]:
    """Group results by eval, in node id order; below ``min_kill_rate`` an eval is weak."""
    groups: defaultdict[str, list[MutantResult]] = defaultdict(list)
    for result in results:
        groups[result.eval_nodeid].append(result)
    summaries = []
    for nodeid, found in sorted(groups.items()):
        control = next((r for r in found if r.mutant == CONTROL), None)
        every = sorted((r for r in found if r.mutant != CONTROL), key=lambda r: r.order)
        mutants = [r for r in every if not is_request_operator(r.operator)]
        kills = (MutantOutcome.KILLED, MutantOutcome.EXHAUSTED)
        killed = sum(1 for r in mutants if r.outcome in kills)
        first = control or found[0]
        summaries.append(
            EvalMutants(
                eval_nodeid=nodeid,
                scenario=first.scenario,
                target=f"{first.provider}/{first.model}",
                source=first.source,
                status=_status(control, mutants, killed, min_kill_rate),
                total=len(mutants),
                killed=killed,
                exhausted=sum(1 for r in mutants if r.outcome is MutantOutcome.EXHAUSTED),
                errors=tuple(r for r in mutants if r.outcome is MutantOutcome.ERROR),
                survivors=tuple(r for r in mutants if r.outcome is MutantOutcome.SURVIVED),
                control=control,
                inert=tuple(r for r in mutants if r.inert),
                requests=tuple(r for r in every if is_request_operator(r.operator)),
                tools=tuple(r for r in mutants if is_tool_result_operator(r.operator)),
            )
        )
    return summaries


@dataclass(frozen=True, slots=True)
class MutationScore:
    """Kills over kills and survivors of the scored evals, inert mutants left out."""

    killed: int
    scored: int
    inert: tuple[MutantResult, ...]
    errors: int

    @property
    def interval(self) -> Interval:
        return wilson_interval(self.killed, self.scored)

    def render(self) -> str:
        """``mutation score: 5/7 71% [36–92] (Wilson 95%); excluded: 2 inert ...``."""
        rate = f"{self.killed / self.scored:.0%} " if self.scored else ""
        excluded = [
            *([f"{len(self.inert)} inert (the run asked for no response)"] if self.inert else []),
            *([f"{self.errors} error(s)"] if self.errors else []),
        ]
        return (
            f"mutation score: {self.killed}/{self.scored} {rate}{self.interval.render()} "
            f"(Wilson 95%); excluded: {', '.join(excluded) or 'none'}, and evals whose "
            "control failed or that were not mutated"
        )


def mutation_score(summaries: Iterable[EvalMutants]) -> MutationScore:
    """The suite's score: evals whose control failed (their kills prove nothing) or
    that were not mutated are left out, as are inert mutants and errors (neither
    killed nor survived)."""
    killed = scored = errors = 0
    inert: list[MutantResult] = []
    for summary in summaries:
        if summary.status in (MutantStatus.CONTROL_FAILED, MutantStatus.NOT_MUTATED):
            continue
        killed += summary.killed
        scored += summary.killed + len(summary.survivors) - len(summary.inert)
        errors += len(summary.errors)
        inert.extend(summary.inert)
    return MutationScore(killed, scored, tuple(inert), errors)
