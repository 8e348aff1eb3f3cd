"""The eval report: one row per scenario run, versioned JSON on disk."""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from harness.core.errors import ConfigurationError
from harness.documents import read_document
from harness.files import atomic_write_text

__all__ = ["REPORT_SCHEMA_VERSION", "EvalReport", "EvalRow", "Verdict", "load_report"]

REPORT_SCHEMA_VERSION = 1


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

    def sorted(self) -> EvalReport:
        """Rows in a stable order, so serial and parallel runs compare equal."""
        rows = tuple(sorted(self.rows, key=lambda r: (r.scenario, r.provider, r.model, r.nodeid)))
        return self.model_copy(update={"rows": rows})

    @property
    def passed(self) -> bool:
        return all(row.verdict in (Verdict.PASS, Verdict.SKIP) for row in self.rows)

    def write(self, path: Path) -> None:
        atomic_write_text(path, self.sorted().model_dump_json(indent=2) + "\n")


def load_report(path: Path) -> EvalReport:
    """Read a report file; a missing, corrupt or foreign file is a clear error."""
    return read_document(
        path,
        EvalReport,
        REPORT_SCHEMA_VERSION,
        what="eval report",
        error=ConfigurationError,
        consequence=f"write one with `harness eval --report {path}`",
    )
