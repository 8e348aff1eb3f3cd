"""One row of an eval report: a scenario on one provider/model, and how it went.

Rows are what the aggregation (``aggregate``), the tables and the comparison
read; the report (``report``) holds them and versions the file.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field, model_validator

from harness.evals.judge import JudgeResult
from harness.evals.provenance import Source

__all__ = ["AGENT_ROLE", "EvalRow", "Verdict"]

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
    # Which repetition (``--epochs``) this run was, from 0; None: run once.
    epoch: int | None = None
    # The cassette file the answers were replayed from or recorded to (its name),
    # so a row says whether an epoch had its own recording or shared one.
    cassette: str | None = None
    # The same file's absolute path, its path from the rootdir and its sha256 at the
    # end of the run: a viewer opens this row's own recording from any folder, says
    # when it changed since, and compare knows two rows replayed the same bytes.
    cassette_path: str | None = None
    cassette_relpath: str | None = None
    cassette_sha256: str | None = None
    # Seconds the run spent importing modules, left out of ``duration_s`` (the first
    # row of a process to use an SDK pays for importing it).
    import_s: float = 0.0
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
    # Calls of MCP servers' tools, by server name (harness's runs and ``mcp_cassette``).
    mcp_calls: dict[str, int] = Field(default_factory=dict)
    # This epoch did not run: sequential stopping (``--sequential``) found the case's
    # verdict certain before it (``harness.evals.sequential``); a skip, its message why.
    # Its provider, model, role and source are its case's, so that it groups with it.
    stopped: bool = False

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
