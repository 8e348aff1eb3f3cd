"""The eval report: one row per scenario run, versioned JSON on disk.

Schema 2 added ``source`` (and the derived ``tokens_synthetic``) to every row and a
``mutants`` section; version-1 reports still load, their rows' source derived
(``scripted`` for the scripted provider, else ``unknown``). Schema 3 added the
epoch and cassette of each run, the model's role, cache token counts, the cost
of each row and the price table it came from; older rows read as one run each
(epoch None), unpriced.

``cases`` and ``suite`` are derived from the rows on every dump (pass@1, pass^k
and their intervals) and ignored on load, so a report written before they
existed loads as it did, and shows them once read.
"""

from __future__ import annotations

import functools
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator
from pydantic_core import PydanticSerializationError

from harness.core.errors import ConfigurationError
from harness.documents import read_document
from harness.evals._rows import AGENT_ROLE, EvalRow, Verdict
from harness.evals._stats import pass_hat_k, pass_hat_k_interval
from harness.evals.aggregate import aggregate_rows, case_counts
from harness.evals.mutant_results import MutantResult
from harness.evals.provenance import Source
from harness.evals.reliability import suite_pass_k
from harness.files import atomic_write_text

__all__ = ["AGENT_ROLE", "REPORT_SCHEMA_VERSION", "EvalReport", "EvalRow", "Verdict", "load_report"]

REPORT_SCHEMA_VERSION = 3
_READABLE_VERSIONS = (1, 2, 3)


class EvalReport(BaseModel):
    """All rows of one ``harness eval`` (or ``pytest --harness-report``) run."""

    model_config = ConfigDict(frozen=True)

    schema_version: int = REPORT_SCHEMA_VERSION
    created_at: str = Field(default_factory=lambda: datetime.now(UTC).isoformat())
    harness_version: str = ""
    record_mode: str = "none"
    rows: tuple[EvalRow, ...] = ()
    mutants: tuple[MutantResult, ...] = ()
    # The price table the rows' costs came from (its source and date), if priced.
    prices: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _upgrade(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("schema_version") in _READABLE_VERSIONS:
            data = {**data, "schema_version": REPORT_SCHEMA_VERSION}
        return data

    def sorted(self) -> EvalReport:
        """Rows in a stable order, so serial and parallel runs compare equal."""
        rows = tuple(
            sorted(
                self.rows,
                key=lambda r: (r.scenario, r.provider, r.model, r.epoch or 0, r.nodeid),
            )
        )
        mutants = tuple(sorted(self.mutants, key=lambda m: (m.eval_nodeid, m.order, m.mutant)))
        return self.model_copy(update={"rows": rows, "mutants": mutants})

    @property
    def sources(self) -> tuple[Source, ...]:
        """The distinct sources of the rows (and mutated evals), in a stable order."""
        found = {row.source for row in self.rows} | {m.source for m in self.mutants}
        return tuple(source for source in Source if source in found)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cases(self) -> list[dict[str, Any]]:
        """Per (case, provider, model role): passes / runs, rate (pass@1), pass^k for
        every k up to the runs (all k runs pass: τ-bench's reliability) with its 95%
        interval (the rate's Wilson interval to the k), Wilson 95% interval, cost."""
        summary = []
        for runs in aggregate_rows(self.rows).values():
            interval, per_run = runs.interval, runs.cost_per_run()
            summary.append(
                {
                    "case": runs.case,
                    "provider": runs.provider,
                    "model_role": runs.role,
                    "models": list(runs.models),
                    "passes": runs.passes,
                    "runs": runs.runs,
                    "rate": runs.rate,
                    "pass_at_1": runs.rate,
                    "pass_hat_k": {
                        str(k): round(pass_hat_k(runs.passes, runs.runs, k), 4)
                        for k in range(1, runs.runs + 1)
                    },
                    "pass_hat_k_interval": _pass_hat_k_intervals(runs.passes, runs.runs),
                    "interval": [round(interval.low, 4), round(interval.high, 4)],
                    "recordings": runs.recordings,
                    "cost_usd": None if per_run is None else per_run * runs.runs,
                }
            )
        return summary

    @computed_field  # type: ignore[prop-decorator]
    @property
    def suite(self) -> dict[str, Any] | None:
        """The suite's pass@1 and pass^k: means over the cases of ``cases``, at the
        fewest runs any case has, with Wilson 95% intervals over the cases
        (``harness.evals.reliability``); None when no case ran."""
        found = suite_pass_k(case_counts(self.rows))
        return None if found is None else found.to_json()

    @property
    def cost_usd(self) -> float | None:
        """The priced rows' total; None when no row is priced."""
        costs = [row.cost_usd for row in self.rows if row.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def passed(self) -> bool:
        return all(row.verdict in (Verdict.PASS, Verdict.SKIP) for row in self.rows)

    def write(self, path: Path) -> None:
        report = self.sorted()
        try:
            text = report.model_dump_json(indent=2)
        except PydanticSerializationError:
            # A lone surrogate (an agent's output read from "\\ud800") has no UTF-8 form:
            # the file keeps its escape, which load_report reads back as that text.
            text = json.dumps(report.model_dump(mode="json"), indent=2)
        atomic_write_text(path, text + "\n")


# A few counts recur over thousands of cases; the dicts are shared: read, never change, them.
@functools.lru_cache(maxsize=1024)
def _pass_hat_k_intervals(passes: int, runs: int) -> dict[str, list[float]]:
    found = (pass_hat_k_interval(passes, runs, k) for k in range(1, runs + 1))
    return {str(k): [round(i.low, 4), round(i.high, 4)] for k, i in enumerate(found, start=1)}


def load_report(path: Path | str) -> EvalReport:
    """Read a report file (schema 1 to 3); a missing, corrupt or foreign file is a clear error."""
    path = Path(path)
    return read_document(
        path,
        EvalReport,
        _READABLE_VERSIONS,  # read once: the model upgrades older versions itself
        what="eval report",
        error=ConfigurationError,
        consequence=f"write one with `harness eval --report {path}`",
        required=("rows",),
    )


def load_gate_report(path: Path) -> EvalReport:
    """A report a gate can judge (compare, ``--baseline``, merge): it must hold rows.

    A report with no rows would make every case of the other side "not run" and
    the gate pass: refuse it instead of judging nothing.
    """
    report = load_report(path)
    if not report.rows and not report.mutants:
        raise ConfigurationError(
            f"eval report {path} has no rows: there is nothing to compare; "
            f"write one with `harness eval --report {path}`"
        )
    return report
