"""Collecting eval rows from test reports, on the xdist controller or alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.evals import EvalReport, EvalRow, TokenUsage, Verdict, model_cost
from harness.evals.mutant_results import MutantResult
from harness.evals.prices import PriceTable
from harness.testing.row_properties import MUTANT_PROPERTY, ROW_PROPERTY

__all__ = ["MUTANT_PROPERTY", "ROW_PROPERTY", "EvalCollector"]

_MESSAGE_CHARS = 1000
# Looked up once: ``EvalRow.model_fields`` is a computed attribute (pydantic's
# descriptor), and the controller of a parallel run reads it for every row.
_ROW_FIELDS = frozenset(EvalRow.model_fields)
_LINE_CHARS = 160


class EvalCollector:
    """Builds one ``EvalRow`` per eval test from its call and teardown reports.

    The numbers ride in ``user_properties``, which pytest-xdist ships from the
    workers to the controller, so a parallel run gives the same report.
    """

    def __init__(self, record_mode: str, prices: PriceTable | None = None) -> None:
        self.record_mode = record_mode
        self.prices = prices
        self.rows: list[EvalRow] = []
        self.mutants: list[MutantResult] = []
        self._outcomes: dict[str, tuple[Verdict, str]] = {}

    def on_report(self, report: pytest.TestReport) -> None:
        mutant = _property(report, MUTANT_PROPERTY)
        if mutant is not None:
            self.mutants.append(MutantResult.model_validate(mutant))
            return
        data = _property(report, ROW_PROPERTY)
        if report.when in ("setup", "call") or (report.when == "teardown" and report.failed):
            self._note(report)
        if report.when != "teardown" or data is None:
            return
        verdict, message = self._outcomes.pop(report.nodeid, (Verdict.ERROR, "no call phase"))
        if verdict is Verdict.FAIL and data.get("recording_failed"):
            # The model was never heard (a refused connection, a bad key): the run
            # says nothing of the agent, so it is an error, not a failed eval.
            where = data.get("cassette_relpath") or data.get("cassette") or "its cassette"
            verdict = Verdict.ERROR
            message = f"nothing was recorded to {where} (the recording failed)\n{message}"
        fields = {k: v for k, v in data.items() if k in _ROW_FIELDS}
        row = EvalRow(nodeid=report.nodeid, verdict=verdict, message=message, **fields)
        self.rows.append(self._priced(row))

    def _priced(self, row: EvalRow) -> EvalRow:
        # Synthetic tokens have no price: a cost for them would read as real spend.
        # A run that used no tokens (it errored before any model call) cost nothing
        # harness can show: `–`, not a made-up $0.0000.
        if self.prices is None or row.tokens_synthetic or not row.tokens:
            return row
        usage = TokenUsage(
            row.input_tokens,
            row.output_tokens,
            row.cached_input_tokens,
            row.cache_write_input_tokens,
        )
        return row.model_copy(update={"cost_usd": model_cost(usage, row.model, self.prices)})

    def _note(self, report: pytest.TestReport) -> None:
        current = self._outcomes.get(report.nodeid)
        if current is not None and current[0] is not Verdict.PASS:
            return  # keep the first failure
        if report.passed:
            if report.when == "call":
                self._outcomes[report.nodeid] = (Verdict.PASS, "")
            return
        if report.skipped:
            self._outcomes[report.nodeid] = (Verdict.SKIP, _message(report))
        elif report.when == "call":
            self._outcomes[report.nodeid] = (Verdict.FAIL, _message(report))
        else:
            self._outcomes[report.nodeid] = (Verdict.ERROR, _message(report))

    def report(self) -> EvalReport:
        from harness.version import __version__

        return EvalReport(
            harness_version=__version__,
            record_mode=self.record_mode,
            prices=None if self.prices is None else self.prices.label,
            rows=tuple(self.rows),
            mutants=tuple(self.mutants),
        ).sorted()

    def write(self, path: Path) -> None:
        self.report().write(path)


def _property(report: pytest.TestReport, wanted: str) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == wanted:
            data = json.loads(value) if isinstance(value, str) else value
            return data if isinstance(data, dict) else None
    return None


def _message(report: pytest.TestReport) -> str:
    """The failure in a line or a few: the crash message, not the traceback."""
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:_MESSAGE_CHARS]
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(getattr(crash, "message", "") or report.longreprtext or "")
    # Long lines (a request body) would crowd out the diff lines that explain a miss.
    # The first line names the failure (and e.g. the cassette path): keep more of it.
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    shortened = [
        _shorten(line, 3 * _LINE_CHARS if i == 0 else _LINE_CHARS) for i, line in enumerate(lines)
    ]
    return "\n".join(shortened)[:_MESSAGE_CHARS]


def _shorten(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[: limit - 3] + "..."
