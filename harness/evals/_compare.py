"""Comparing two eval reports: the model-upgrade diff, as a statistical gate.

Rows pair by (case, provider, model role, test), so a baseline recorded with one
model compares with a run of another and two files' evals of one name stay two
cases; epochs fold into pass rates (``aggregate``) and
``gate`` decides what a drop means. Each case and the suite as a whole state
their power: the smallest drop the runs could detect, beside pass@1 and pass^k.
With epochs on both sides the suite's pass^k (a mean over the cases both ran)
is gated too: a fall beyond its interval over cases is a regression
(``reliability``), which a suite of many slightly less reliable cases shows
where no single case can.
"""

from __future__ import annotations

import difflib
import json
import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from harness.evals._cost import render_cost
from harness.evals._gate import (
    FailOn,
    GateSettings,
    RateVerdict,
    Status,
    judge_rates,
    render_needs,
    render_points,
)
from harness.evals._grid import grid_lines
from harness.evals._report import AGENT_ROLE, EvalReport
from harness.evals._stats import (
    EXACT_MAX_RUNS,
    detectable_drop,
    epochs_needed,
    pass_hat_k,
    pass_hat_k_interval,
)
from harness.evals.aggregate import CaseKey, CaseRuns, aggregate_rows
from harness.evals.prices import PriceTable
from harness.evals.provenance import Source
from harness.evals.reliability import SuitePassKDrop, compare_suites

__all__ = ["Change", "Comparison", "SuitePower", "compare_reports"]

# Per-run means that count as a change when they move (model name alone does not).
_COUNTS = (("steps", "steps"), ("llm calls", "llm_calls"), ("tool calls", "tool_calls"))


@dataclass(frozen=True, slots=True)
class Change:
    """One case on one provider in one role, before and after."""

    key: CaseKey
    old: CaseRuns | None
    new: CaseRuns | None
    status: Status
    rate: RateVerdict | None = None
    notes: tuple[str, ...] = ()
    shape_diff: tuple[str, ...] = ()
    old_cost: float | None = None
    new_cost: float | None = None
    # The case's name is shared by another test: the text names the test too.
    collides: bool = False

    @property
    def scenario(self) -> str:
        return self.key[0]

    @property
    def test(self) -> str:
        return self.key[3]

    @property
    def case(self) -> str:
        """The case as the text shows it: its name, and its test where names collide."""
        return f"{self.scenario} ({self.test})" if self.collides else self.scenario

    @property
    def provider(self) -> str:
        return self.key[1]

    @property
    def label(self) -> str:
        role = "" if self.key[2] == AGENT_ROLE else f", {self.key[2]}"
        return f"{self.case} [{self.provider}{role}]"

    @property
    def regression(self) -> bool:
        return self.status is Status.REGRESSION

    @property
    def verdict_flip(self) -> bool:
        """The pass rate moved (either way)."""
        if self.old is None or self.new is None or not self.old.runs or not self.new.runs:
            return False
        return self.old.passes * self.new.runs != self.new.passes * self.old.runs

    def cells(self) -> tuple[str, ...]:
        def rate(runs: CaseRuns | None) -> str:
            return "not run" if runs is None or not runs.runs else runs.render_rate()

        def tokens(runs: CaseRuns | None) -> str:
            if runs is None or not runs.runs:
                return "–"
            mark = "*" if runs.synthetic else ""
            return f"{runs.mean('input_tokens') + runs.mean('output_tokens'):.0f}{mark}"

        def steps(runs: CaseRuns | None) -> str:
            return "–" if runs is None or not runs.runs else _number(runs.mean("steps"))

        def cost(runs: CaseRuns | None, value: float | None) -> str:
            return "–" if runs is None else render_cost(value, synthetic=runs.synthetic)

        p = "–" if self.rate is None else f"{self.rate.p_value:.3g}"
        reliable = self.pass_k
        pass_k = (
            "–" if reliable is None else f"{reliable[1]:.0%} → {reliable[2]:.0%} (k={reliable[0]})"
        )
        if self.status is Status.REGRESSION:
            status = self.status.value.upper()
        elif self.status is Status.INCONCLUSIVE and self.rate is not None:
            status = render_needs(self.rate.needs_epochs)
        else:
            status = self.status.value
        return (
            self.case,
            f"{self.provider}/{self.key[2]}",
            rate(self.old),
            rate(self.new),
            p,
            pass_k,
            "–" if self.rate is None else _render_detectable(self.rate.detectable),
            f"{tokens(self.old)} → {tokens(self.new)}",
            f"{cost(self.old, self.old_cost)} → {cost(self.new, self.new_cost)}",
            f"{steps(self.old)} → {steps(self.new)}",
            status,
        )

    @property
    def pass_k(self) -> tuple[int, float, float] | None:
        """``(k, old pass^k, new pass^k)`` at the runs both sides have (None: one side
        has none): like with like, since pass^k falls as k grows."""
        if self.old is None or self.new is None or not self.old.runs or not self.new.runs:
            return None
        k = min(self.old.runs, self.new.runs)
        old = pass_hat_k(self.old.passes, self.old.runs, k)
        return k, old, pass_hat_k(self.new.passes, self.new.runs, k)

    def _pass_k_json(self) -> dict[str, Any] | None:
        """``k``, ``old``, ``new``; from k = 2 also their intervals, the fall's and the verdict."""
        if self.rate is not None and self.rate.pass_k is not None:
            return self.rate.pass_k.to_json()
        if self.pass_k is None:
            return None
        return dict(zip(("k", "old", "new"), self.pass_k, strict=True))

    def to_json(self) -> dict[str, Any]:
        def side(runs: CaseRuns | None, cost: float | None) -> dict[str, Any] | None:
            if runs is None:
                return None
            return {
                "passes": runs.passes,
                "runs": runs.runs,
                "rate": runs.rate,
                "pass_at_1": runs.rate,
                "pass_hat_k": _pass_hat_ks(runs.passes, runs.runs),
                "pass_hat_k_interval": _pass_hat_k_intervals(runs.passes, runs.runs),
                "interval": [runs.interval.low, runs.interval.high],
                "models": list(runs.models),
                "sources": [s.value for s in runs.sources],
                "tokens_per_run": runs.mean("input_tokens") + runs.mean("output_tokens"),
                "tokens_synthetic": runs.synthetic,
                "steps_per_run": runs.mean("steps"),
                "cost_per_run_usd": cost,
                "median_duration_s": runs.median_duration(),
            }

        return {
            "case": self.scenario,
            "test": self.test,
            "provider": self.provider,
            "model_role": self.key[2],
            "status": self.status.value,
            "p_value": None if self.rate is None else self.rate.p_value,
            "reason": None if self.rate is None else self.rate.reason or None,
            "detectable_drop": None if self.rate is None else self.rate.detectable,
            "needs_epochs": None if self.rate is None else self.rate.needs_epochs,
            "pass_k": self._pass_k_json(),
            "notes": list(self.notes),
            "old": side(self.old, self.old_cost),
            "new": side(self.new, self.new_cost),
        }


_HEADERS = (
    "case",
    "provider/role",
    "old",
    "new",
    "p",
    "pass^k",
    "detects",
    "tokens/run",
    "cost/run",
    "steps",
    "status",
)
_POWER_NOTE = (
    "detects: the smallest drop from the old rate these runs catch at {power:.0%} power "
    "(one-sided Fisher exact at alpha {alpha:g}, enumerated up to {exact} runs a side, else its "
    "normal approximation; none: no drop can be); pass^k: the chance that k runs all pass "
    "(k = the runs both sides have)"
)


def _render_detectable(drop: float | None) -> str:
    return "none" if drop is None else f"≥{render_points(drop)}"


def _pass_hat_ks(passes: int, runs: int) -> dict[str, float]:
    return {str(k): pass_hat_k(passes, runs, k) for k in range(1, runs + 1)}


def _pass_hat_k_intervals(passes: int, runs: int) -> dict[str, list[float]]:
    found = (pass_hat_k_interval(passes, runs, k) for k in range(1, runs + 1))
    return {str(k): [i.low, i.high] for k, i in enumerate(found, start=1)}


@dataclass(frozen=True, slots=True)
class SuitePower:
    """The suite's runs pooled: the drop of its overall pass rate it could detect.

    A suite-wide drop (every case a little worse) hides below each case's own
    power; pooling the cases both reports ran is the test that could see it.
    """

    cases: int
    old_passes: int
    old_runs: int
    new_passes: int
    new_runs: int
    detectable: float | None
    needs_epochs: int | None  # per case, for an inconclusive pooled drop
    exact: bool  # False: the normal approximation (pooled runs above EXACT_MAX_RUNS)

    @property
    def drop(self) -> float:
        return self.old_passes / self.old_runs - self.new_passes / self.new_runs

    @property
    def inconclusive(self) -> bool:
        return self.drop > 0 and (self.detectable is None or self.drop < self.detectable - 1e-12)

    def render(self, settings: GateSettings) -> str:
        how = "exact" if self.exact else "normal approximation"
        seen = (
            "no drop is detectable"
            if self.detectable is None
            else f"detects a drop of {_render_detectable(self.detectable)[1:]} or more"
        )
        line = (
            f"suite: {self.old_passes}/{self.old_runs} -> {self.new_passes}/{self.new_runs} "
            f"pooled over {self.cases} case(s); {seen} at {settings.power:.0%} power "
            f"(alpha {settings.alpha:g}, {how})"
        )
        if self.inconclusive:
            # "inconclusive (needs ≥ 23 epochs per case)": pooled runs, shared by the cases.
            line += (
                f"; its drop of {self.drop:.0%} is {render_needs(self.needs_epochs)[:-1]} per case)"
            )
        return line

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "old": {"passes": self.old_passes, "runs": self.old_runs},
            "new": {"passes": self.new_passes, "runs": self.new_runs},
            "drop": self.drop,
            "detectable_drop": self.detectable,
            "inconclusive": self.inconclusive,
            "needs_epochs": self.needs_epochs,
            "method": "exact" if self.exact else "normal approximation",
        }


def suite_power(changes: tuple[Change, ...], settings: GateSettings) -> SuitePower | None:
    """Pool every case both reports ran; None when there is none."""
    both = [c for c in changes if c.status is not Status.NOT_RUN and c.old and c.new]
    if not both:
        return None
    old_passes = sum(c.old.passes for c in both if c.old)
    old_runs = sum(c.old.runs for c in both if c.old)
    new_passes = sum(c.new.passes for c in both if c.new)
    new_runs = sum(c.new.runs for c in both if c.new)
    old_rate = old_passes / old_runs
    drop = old_rate - new_passes / new_runs
    detectable = detectable_drop(old_rate, old_runs, new_runs, settings.alpha, settings.power)
    needs = None
    if drop > 0 and (detectable is None or drop < detectable):
        runs = epochs_needed(old_rate, drop, settings.alpha, settings.power)
        # Runs a side pooled over the cases: each case's share, rounded up.
        needs = None if runs is None else max(1, math.ceil(runs / len(both)))
    exact = max(old_runs, new_runs) <= EXACT_MAX_RUNS
    return SuitePower(
        len(both), old_passes, old_runs, new_passes, new_runs, detectable, needs, exact
    )


@dataclass(frozen=True, slots=True)
class Comparison:
    changes: tuple[Change, ...] = field(default_factory=tuple)
    old_sources: tuple[Source, ...] = ()
    new_sources: tuple[Source, ...] = ()
    settings: GateSettings = field(default_factory=GateSettings)
    old_cost: float | None = None
    new_cost: float | None = None

    def with_status(self, *statuses: Status) -> tuple[Change, ...]:
        return tuple(c for c in self.changes if c.status in statuses)

    @property
    def regressions(self) -> tuple[Change, ...]:
        return self.with_status(Status.REGRESSION)

    @property
    def changed(self) -> tuple[Change, ...]:
        """Cases that differ in anything the gate counts (not run, slower and same excluded)."""
        return self.with_status(
            Status.REGRESSION, Status.WEAKER, Status.INCONCLUSIVE, Status.CHANGED
        )

    @property
    def suite(self) -> SuitePower | None:
        """The suite's pooled power (None: no case both reports ran)."""
        return suite_power(self.changes, self.settings)

    @property
    def suite_pass_k(self) -> SuitePassKDrop | None:
        """The suite's pass^k before and after over the cases both reports ran, at the
        fewest runs any of them has (None: none ran on both sides, or one ran once)."""
        return compare_suites(
            [
                ((c.old.passes, c.old.runs), (c.new.passes, c.new.runs))
                for c in self.changes
                if c.status is not Status.NOT_RUN and c.old is not None and c.new is not None
            ],
            1 - self.settings.alpha,
        )

    @property
    def regressed(self) -> bool:
        """A case regressed, or the suite's pass^k fell beyond its interval."""
        reliable = self.suite_pass_k
        return bool(self.regressions) or (reliable is not None and reliable.regression)

    def exit_code(self, fail_on: FailOn) -> int:
        """The gravest failing finding's code (regression 1, weaker 3, change 4, slower 5);
        the suite's pass^k falling beyond its interval is a regression."""
        found = {c.status for c in self.changes}
        reliable = self.suite_pass_k
        if reliable is not None and reliable.regression:
            found.add(Status.REGRESSION)
        for status in fail_on.failing:
            if status in found:
                return status.exit_code
        return 0

    @property
    def sources_differ(self) -> bool:
        """The reports' answers come from different places (e.g. live vs simulator)."""
        return set(self.old_sources) != set(self.new_sources)

    def render_sources(self) -> list[str]:
        """Where each report's model answers came from, and a warning when that differs."""
        old, new = _names(self.old_sources), _names(self.new_sources)
        lines = [f"sources: old {old}, new {new}"]
        if self.sources_differ:
            lines.append(
                f"WARNING: the reports' model answers come from different sources ({old} vs "
                f"{new}); differences may come from the source, not the model"
            )
        return lines

    def render(self) -> str:
        lines = self.render_sources()
        lines.extend(grid_lines(_HEADERS, [c.cells() for c in self.changes]))
        if any(
            runs is not None and runs.synthetic for c in self.changes for runs in (c.old, c.new)
        ):
            lines.append("* synthetic tokens: counted by no real model, and not priced")
        for change in self.changes:
            if change.status in (Status.SAME, Status.NOT_RUN):
                continue
            tag = {
                Status.REGRESSION: "REGRESSION",
                Status.WEAKER: "WEAKER",
                Status.INCONCLUSIVE: "INCONCLUSIVE",
            }.get(change.status, change.status.value)
            lines.append(f"{tag}: {change.label}")
            lines.extend(f"  {note}" for note in change.notes)
            lines.extend(f"    {line}" for line in change.shape_diff)
        reliable = self.suite_pass_k
        if reliable is not None and reliable.regression:
            lines.append(f"REGRESSION: {reliable.reason}")
        lines.extend(_not_run_lines(self.with_status(Status.NOT_RUN)))
        both = len(self.changes) - len(self.with_status(Status.NOT_RUN))
        lines.append(
            f"cost of one run of the {both} case(s) both reports ran: old "
            f"{render_cost(self.old_cost)}, new {render_cost(self.new_cost)}"
            + _delta(self.old_cost, self.new_cost)
        )
        suite = self.suite
        if suite is not None:
            lines.append(suite.render(self.settings))
            if reliable is not None and not reliable.regression:
                lines.append(reliable.reason)
            lines.append(
                _POWER_NOTE.format(
                    power=self.settings.power, alpha=self.settings.alpha, exact=EXACT_MAX_RUNS
                )
            )
        if not self.changed and not self.with_status(Status.NOT_RUN, Status.SLOWER):
            lines.append("no changes between the two reports")
            return "\n".join(lines)
        counts = {s: len(self.with_status(s)) for s in Status}
        lines.append(
            f"{len(self.changed)} case(s) changed: {counts[Status.REGRESSION]} regression(s), "
            f"{counts[Status.WEAKER]} weaker, {counts[Status.INCONCLUSIVE]} inconclusive, "
            f"{counts[Status.CHANGED]} other change(s); "
            f"{counts[Status.NOT_RUN]} not run, {counts[Status.SLOWER]} slower"
            + (
                "; the suite's pass^k regressed"
                if reliable is not None and reliable.regression
                else ""
            )
        )
        return "\n".join(lines)

    def to_json(self) -> str:
        s = self.settings
        reliable = self.suite_pass_k
        return json.dumps(
            {
                "settings": {
                    "alpha": s.alpha,
                    "max_drop": s.max_drop,
                    "slower_ratio": s.slower_ratio,
                    "slower_min_s": s.slower_min_s,
                    "power": s.power,
                },
                "old_sources": [x.value for x in self.old_sources],
                "new_sources": [x.value for x in self.new_sources],
                "old_cost_usd": self.old_cost,
                "new_cost_usd": self.new_cost,
                "cases": [c.to_json() for c in self.changes],
                "suite": None if self.suite is None else self.suite.to_json(),
                "suite_pass_k": None if reliable is None else reliable.to_json(),
            },
            indent=2,
        )


def compare_reports(
    old: EvalReport,
    new: EvalReport,
    settings: GateSettings | None = None,
    *,
    prices: PriceTable | None = None,
) -> Comparison:
    """Pair cases by (case, provider, model role, test) and judge each pass-rate move.

    ``prices`` prices rows of reports written before rows carried a cost.
    """
    settings = settings or GateSettings()
    old_cases, new_cases = aggregate_rows(old.rows), aggregate_rows(new.rows)
    keys = sorted(set(old_cases) | set(new_cases))
    tests = Counter(name for name, _ in {(key[0], key[3]) for key in keys})
    changes = [
        _change(key, old_cases.get(key), new_cases.get(key), settings, prices) for key in keys
    ]
    # Only a case name two tests share needs its test in the label.
    changes = [
        replace(change, collides=True) if tests[change.key[0]] > 1 else change for change in changes
    ]
    return Comparison(
        tuple(changes),
        old.sources,
        new.sources,
        settings,
        # Only cases both reports ran: a case one side lacks would swing the total.
        _total([c.old_cost for c in changes if c.status is not Status.NOT_RUN]),
        _total([c.new_cost for c in changes if c.status is not Status.NOT_RUN]),
    )


def _total(costs: list[float | None]) -> float | None:
    return None if not costs or any(c is None for c in costs) else sum(c for c in costs if c)


def _number(value: float) -> str:
    """A mean as a reader wants it: ``2``, ``1.67``, never ``1.66667``."""
    return f"{value:.2f}".rstrip("0").rstrip(".") or "0"


def _one_line(text: str, limit: int = 160) -> str:
    """A failure message on one line (a repr may span many), cut at ``limit``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def _not_run_lines(changes: tuple[Change, ...]) -> list[str]:
    """One line per side that lacks cases (a per-provider baseline lacks many), not one each."""
    lines = []
    for where in ("the old report", "the new report"):
        missing = [c for c in changes if f"not run in {where}" in " ".join(c.notes)]
        if not missing:
            continue
        shown = ", ".join(c.label for c in missing[:5])
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        lines.append(f"NOT RUN in {where} ({len(missing)} case(s), not compared): {shown}{more}")
    return lines


def _names(sources: tuple[Source, ...]) -> str:
    return "+".join(source.value for source in sources) or "none"


def _delta(old: float | None, new: float | None) -> str:
    if old is None or new is None:
        return ""
    return f" ({'+' if new >= old else '-'}${abs(new - old):.4f})"


def _change(
    key: CaseKey,
    old: CaseRuns | None,
    new: CaseRuns | None,
    settings: GateSettings,
    prices: PriceTable | None,
) -> Change:
    old_cost = None if old is None else old.cost_per_run(prices)
    new_cost = None if new is None else new.cost_per_run(prices)
    if old is None or new is None or not old.runs or not new.runs:
        where = "the old report" if old is None or not old.runs else "the new report"
        note = f"not run in {where}: not compared"
        return Change(key, old, new, Status.NOT_RUN, None, (note,), (), old_cost, new_cost)
    rate = judge_rates(old.passes, old.runs, new.passes, new.runs, settings)
    notes: list[str] = []
    if old.models != new.models:
        notes.append(f"model: {'+'.join(old.models)} -> {'+'.join(new.models)}")
    counted = False  # does anything beyond the model name differ?
    if old.sources != new.sources:
        notes.append(f"source: {_names(old.sources)} -> {_names(new.sources)}")
        counted = True
    if old.passes * new.runs != new.passes * old.runs:
        notes.append(f"pass rate: {old.render_rate()} -> {new.render_rate()}")
        if rate.reason:
            notes.append(rate.reason)
        reliable = rate.pass_k
        if reliable is not None and reliable.reason != rate.reason and rate.drop > 0:
            notes.append(reliable.reason)  # pass^k fell too, within its interval
        failures = Counter(_one_line(failure) for failure in new.failures)
        notes.extend(
            f"new {line}" + (f" ({count}x)" if count > 1 else "")
            for line, count in failures.most_common(3)
        )
        counted = True
    shape_diff: tuple[str, ...] = ()
    if old.shapes != new.shapes:
        notes.append("trace shape changed:")
        shape_diff = _shape_diff(old.shapes, new.shapes)
        counted = True
    for label, name in (*_COUNTS, ("tokens", "input_tokens")):
        before, after = old.mean(name), new.mean(name)
        if name == "input_tokens":
            before += old.mean("output_tokens")
            after += new.mean("output_tokens")
        if before != after:
            change = ("+" if after >= before else "-") + _number(abs(after - before))
            notes.append(f"{label}: {_number(before)} -> {_number(after)} ({change}) per run")
            counted = True
    if old_cost is not None and new_cost is not None and old_cost != new_cost:
        notes.append(f"cost per run: ${old_cost:.4f} -> ${new_cost:.4f}")
    for side, runs in (("old", old), ("new", new)):
        if runs.stopped:
            notes.append(
                f"{side}: stopped early after {runs.runs} run(s) of {runs.runs + runs.stopped} "
                "epochs (--sequential: the rest could not change its verdict); rates are of "
                "the runs that ran"
            )
        replayed = len(runs.rows) - runs.stopped
        if 0 < runs.recordings < replayed:
            notes.append(
                f"{side}: {replayed} runs replayed {runs.recordings} recording(s); "
                "replays are not independent samples of the model"
            )
    # Two replays of the same bytes time harness and the machine, not the model.
    slow = not _same_recordings(old, new) and settings.slower(
        old.median_duration(), new.median_duration()
    )
    if slow:
        notes.append(
            f"duration: {old.median_duration():.2f}s -> {new.median_duration():.2f}s "
            "(median; counts only with --fail-on slower)"
        )
    status: Status
    if rate.status is not Status.SAME:
        status = rate.status
    elif counted:
        status = Status.CHANGED
    else:
        status = Status.SLOWER if slow else Status.SAME
    return Change(key, old, new, status, rate, tuple(notes), shape_diff, old_cost, new_cost)


def _same_recordings(old: CaseRuns, new: CaseRuns) -> bool:
    """Both sides replayed recordings with the same digests (rows of older reports have none)."""
    before = {row.cassette_sha256 for row in old.rows if not row.stopped}
    after = {row.cassette_sha256 for row in new.rows if not row.stopped}
    return None not in before and before == after


def _shape_diff(old: tuple[str, ...], new: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(
        line.rstrip("\n")
        for line in difflib.unified_diff(
            "\n\n".join(old).splitlines(),
            "\n\n".join(new).splitlines(),
            "old",
            "new",
            lineterm="",
            n=1,
        )
    )
