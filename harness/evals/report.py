"""The eval report: one row per scenario run, versioned JSON on disk.

Schema 2 added ``source`` (and the derived ``tokens_synthetic``) to every row and a
``mutants`` section; version-1 reports still load, their rows' source derived
(``scripted`` for the scripted provider, else ``unknown``). Schema 3 added the
epoch and cassette of each run, the model's role, cache token counts, the cost
of each row and the price table it came from; older rows read as one run each
(epoch None), unpriced.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from harness.core.errors import ConfigurationError
from harness.documents import read_document
from harness.evals.judge import JudgeResult
from harness.evals.mutant_results import MutantResult
from harness.evals.provenance import Source
from harness.files import atomic_write_text
from harness.jsonload import load_json

__all__ = ["AGENT_ROLE", "REPORT_SCHEMA_VERSION", "EvalReport", "EvalRow", "Verdict", "load_report"]

REPORT_SCHEMA_VERSION = 3
_READABLE_VERSIONS = (1, 2, 3)
AGENT_ROLE = "agent"


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"
    SKIP = "skip"


class EvalRow(BaseModel):
    """One scenario on one provider/model, and how it went."""

    model_config = ConfigDict(frozen=True)

    scenario: str
    nodeid: str
    provider: str = "scripted"
    model: str = "scripted"
    verdict: Verdict
    message: str = ""
    steps: int = 0
    llm_calls: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    duration_s: float = 0.0
    shape: str | None = None
    shape_ok: bool | None = None
    source: Source = Source.UNKNOWN
    # Which repetition (``--epochs``) this run was, as an index from 0 (the table,
    # test ids, cassette names and the page count from 1: index 0 is epoch 1).
    epoch: int | None = None
    # The cassette file the answers were replayed from or recorded to (its name),
    # so a row says whether an epoch had its own recording or shared one.
    cassette: str | None = None
    # What the model did in the case (the agent under test, a judge, ...); rows
    # compare by role, so a new model compares with the old one in the same role.
    model_role: str = AGENT_ROLE
    cached_input_tokens: int = 0
    cache_write_input_tokens: int = 0
    # USD at the report's price table; None when synthetic or the model is unpriced.
    cost_usd: float | None = None
    judge: JudgeResult | None = None
    # The trace files the runs of this test wrote (absolute paths; they live in the
    # run's temporary state dir, so they may be gone when the report is read).
    traces: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _derive_source(cls, data: Any) -> Any:
        # Rows of version-1 reports (and callers that omit it) carry no source.
        if isinstance(data, dict) and data.get("source") is None:
            scripted = data.get("provider", "scripted") == "scripted"
            data = {**data, "source": Source.SCRIPTED if scripted else Source.UNKNOWN}
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def tokens_synthetic(self) -> bool:
        """No real model counted these tokens (the simulator's estimate, scripted words)."""
        return self.source.synthetic_tokens

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.scenario, self.provider, self.model)

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


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
        """Per (case, provider, model role): passes / runs, rate, Wilson 95% interval, cost."""
        from harness.evals.aggregate import aggregate_rows  # it builds on this module

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
                    "interval": [round(interval.low, 4), round(interval.high, 4)],
                    "recordings": runs.recordings,
                    "cost_usd": None if per_run is None else per_run * runs.runs,
                }
            )
        return summary

    @property
    def cost_usd(self) -> float | None:
        """The priced rows' total; None when no row is priced."""
        costs = [row.cost_usd for row in self.rows if row.cost_usd is not None]
        return sum(costs) if costs else None

    @property
    def passed(self) -> bool:
        return all(row.verdict in (Verdict.PASS, Verdict.SKIP) for row in self.rows)

    def write(self, path: Path) -> None:
        atomic_write_text(path, self.sorted().model_dump_json(indent=2) + "\n")


def _stored_version(path: Path) -> int:
    try:
        found = load_json(path.read_bytes()).get("schema_version")
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return REPORT_SCHEMA_VERSION  # read_document names what is wrong
    return found if found in _READABLE_VERSIONS else REPORT_SCHEMA_VERSION


def load_report(path: Path) -> EvalReport:
    """Read a report file (schema 1 to 3); a missing, corrupt or foreign file is a clear error."""
    return read_document(
        path,
        EvalReport,
        _stored_version(path),
        what="eval report",
        error=ConfigurationError,
        consequence=f"write one with `harness eval --report {path}`",
    )
