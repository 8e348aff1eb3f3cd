"""Epochs of one case folded into one line: passes out of runs, and what they cost.

A row of the report is one run. Rows of the same case, provider and model role
(whatever the model's name: that is what an upgrade changes) and the same test
(its file and function: two files may hold evals of one name) are one
``CaseRuns``. Skipped runs are no evidence either way and are left out of the
rate; a case whose every run was skipped counts as not run.
"""

from __future__ import annotations

import functools
import math
import statistics
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from harness.evals._cost import TokenUsage, model_cost
from harness.evals._rows import EvalRow, Verdict
from harness.evals._stats import Interval, wilson_interval
from harness.evals.prices import PriceTable
from harness.evals.provenance import Source

__all__ = ["CaseKey", "CaseRuns", "aggregate_rows", "case_counts", "identity_of", "render_rate"]

# (case, provider, model role, test): the test (``file::function`` of the node
# id, parameters cut) keeps same-named evals of two files apart.
CaseKey = tuple[str, str, str, str]
# Iterating an Enum class runs a generator each time: once, in declaration order.
_SOURCES = tuple(Source)
# A member looked up on its class goes through the Enum's descriptor every time.
_SKIP, _PASS = Verdict.SKIP, Verdict.PASS


@dataclass(frozen=True, slots=True)
class CaseRuns:
    """Every run of one case on one provider in one model role."""

    key: CaseKey
    rows: tuple[EvalRow, ...]
    # Derived once: compare reads them a few dozen times per case (10,000 cases).
    counted: tuple[EvalRow, ...] = field(init=False, repr=False, compare=False)
    """The runs with a verdict (skips excluded)."""
    passes: int = field(init=False, repr=False, compare=False)
    synthetic: bool = field(init=False, repr=False, compare=False)
    """Some run's tokens were counted by no real model."""
    _means: dict[str, float] = field(init=False, repr=False, compare=False)
    # models, sources, shapes, recordings, the median duration: read two to four
    # times per case by compare, each once made.
    _made: dict[str, Any] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # One loop, no generators: a 10,000-case compare builds 20,000 of these.
        counted: list[EvalRow] = []
        passes, synthetic = 0, False
        for row in self.rows:
            synthetic = synthetic or row.tokens_synthetic
            verdict = row.verdict
            if verdict is not _SKIP:
                counted.append(row)
                passes += verdict is _PASS
        object.__setattr__(self, "counted", tuple(counted))
        object.__setattr__(self, "passes", passes)
        object.__setattr__(self, "synthetic", synthetic)
        object.__setattr__(self, "_means", {})
        object.__setattr__(
            self, "_made", _one_run(self.rows[0], counted) if len(self.rows) == 1 else {}
        )

    @property
    def case(self) -> str:
        return self.key[0]

    @property
    def provider(self) -> str:
        return self.key[1]

    @property
    def role(self) -> str:
        return self.key[2]

    @property
    def test(self) -> str:
        return self.key[3]

    @property
    def runs(self) -> int:
        return len(self.counted)

    @property
    def stopped(self) -> int:
        """Epochs sequential stopping skipped (``--sequential``): planned, never run."""
        return sum(1 for row in self.rows if row.stopped)

    @property
    def rate(self) -> float | None:
        return self.passes / self.runs if self.runs else None

    @property
    def interval(self) -> Interval:
        return wilson_interval(self.passes, self.runs)

    @property
    def models(self) -> tuple[str, ...]:
        found = self._made.get("models")
        if found is None:
            found = self._made["models"] = tuple(sorted({r.model for r in self.rows}))
        return found

    @property
    def sources(self) -> tuple[Source, ...]:
        found = self._made.get("sources")
        if found is None:
            present = {r.source for r in self.rows}
            found = self._made["sources"] = tuple(s for s in _SOURCES if s in present)
        return found

    @property
    def recordings(self) -> int:
        """Distinct cassettes behind the runs: 1 for N epochs means N replays of one answer."""
        found = self._made.get("recordings")
        if found is None:
            cassettes = {r.cassette for r in self.rows if r.cassette is not None}
            found = self._made["recordings"] = len(cassettes)
        return found

    @property
    def shapes(self) -> tuple[str, ...]:
        """The distinct trace shapes of the runs, in a stable order."""
        found = self._made.get("shapes")
        if found is None:
            found = self._made["shapes"] = tuple(sorted({r.shape for r in self.counted if r.shape}))
        return found

    @property
    def failures(self) -> tuple[str, ...]:
        return tuple(
            f"{r.verdict.value}: {r.message}" if r.message else r.verdict.value
            for r in self.counted
            if r.verdict is not Verdict.PASS
        )

    def mean(self, field: str) -> float:
        """The mean of a numeric row field over the counted runs (0 when none)."""
        if len(self.counted) == 1:  # most cases run once: its value, no list or sum
            return float(getattr(self.counted[0], field))
        found = self._means.get(field)
        if found is None:
            values = [float(getattr(r, field)) for r in self.counted]
            # statistics.fmean's own sum and division, without its checks
            found = self._means[field] = math.fsum(values) / len(values) if values else 0.0
        return found

    def median_duration(self) -> float:
        found = self._made.get("median_duration")
        if found is None:
            values = [r.duration_s for r in self.counted]
            found = self._made["median_duration"] = statistics.median(values) if values else 0.0
        return found

    def cost_per_run(self, prices: PriceTable | None = None) -> float | None:
        """Mean USD per run; None when synthetic or any run is unpriced.

        Rows of older reports carry no cost: ``prices`` prices them now.
        """
        if self.synthetic or not any(row.tokens for row in self.counted):
            return None  # nothing was priced: `–`, never $0.0000
        costs: list[float] = []
        for row in self.counted:
            if not row.tokens:
                costs.append(0.0)  # no model call: it adds nothing to the mean's sum
                continue
            cost = row.cost_usd
            if cost is None and prices is not None:
                cost = model_cost(_usage(row), row.model, prices)
            if cost is None:
                return None
            costs.append(cost)
        return statistics.fmean(costs)

    def render_rate(self) -> str:
        return render_rate(self.passes, self.runs)


def _one_run(row: EvalRow, counted: list[EvalRow]) -> dict[str, Any]:
    """What the properties would derive, for a case of one run (most cases): known
    at once, without the sets and sorts that several runs need."""
    return {
        "models": (row.model,),
        "sources": (row.source,),
        "recordings": int(row.cassette is not None),
        "shapes": (row.shape,) if counted and row.shape else (),
        "median_duration": row.duration_s if counted else 0.0,
    }


@functools.lru_cache(maxsize=4096)  # pure; a large compare renders the same few
def render_rate(passes: int, runs: int) -> str:
    """``3/3 100% [44–100]``: passes / runs, the rate and its Wilson 95% interval."""
    if runs == 0:
        return "0/0 –"
    return f"{passes}/{runs} {passes / runs:.0%} {wilson_interval(passes, runs).render()}"


def _usage(row: EvalRow) -> TokenUsage:
    return TokenUsage(
        row.input_tokens, row.output_tokens, row.cached_input_tokens, row.cache_write_input_tokens
    )


def identity_of(nodeid: str) -> str:
    """``evals/test_a.py::test_flow`` of ``evals/test_a.py::test_flow[openai-approve]``.

    The parameters are cut: they hold the provider and epoch, which the key has
    on its own (or, for an epoch, folds), and the scenario's own parameters,
    which its name already carries.
    """
    return nodeid.partition("[")[0]


def case_key(row: EvalRow) -> CaseKey:
    """The case a row is a run of: (case, provider, model role, test)."""
    return (row.scenario, row.provider, row.model_role, identity_of(row.nodeid))


def aggregate_rows(rows: Iterable[EvalRow]) -> dict[CaseKey, CaseRuns]:
    """Group rows into ``CaseRuns`` by (case, provider, model role, test)."""
    groups: defaultdict[CaseKey, list[EvalRow]] = defaultdict(list)
    for row in rows:
        groups[case_key(row)].append(row)
    return {key: CaseRuns(key, tuple(found)) for key, found in sorted(groups.items())}


def case_counts(rows: Iterable[EvalRow]) -> list[tuple[int, int]]:
    """Each case's ``(passes, runs)``, skips left out, in ``aggregate_rows``'s order:
    the counts alone, without building a ``CaseRuns`` per case."""
    counts: defaultdict[CaseKey, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        found = counts[case_key(row)]
        verdict = row.verdict
        if verdict is not _SKIP:
            found[1] += 1
            found[0] += verdict is _PASS
    return [(passes, runs) for _, (passes, runs) in sorted(counts.items())]
