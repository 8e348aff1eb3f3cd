"""Collecting eval rows from test reports, on the xdist controller or alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from harness.evals.report import EvalReport, EvalRow, Verdict

__all__ = ["ROW_PROPERTY", "EvalCollector"]

ROW_PROPERTY = "harness_eval"


class EvalCollector:
    """Builds one ``EvalRow`` per eval test from its call and teardown reports.

    The numbers ride in ``user_properties``, which pytest-xdist ships from the
    workers to the controller, so a parallel run gives the same report.
    """

    def __init__(self, record_mode: str) -> None:
        self.record_mode = record_mode
        self.rows: list[EvalRow] = []
        self._outcomes: dict[str, tuple[Verdict, str]] = {}

    def on_report(self, report: pytest.TestReport) -> None:
        data = _row_data(report)
        if report.when in ("setup", "call") or (report.when == "teardown" and report.failed):
            self._note(report)
        if report.when != "teardown" or data is None:
            return
        verdict, message = self._outcomes.pop(report.nodeid, (Verdict.ERROR, "no call phase"))
        fields = {k: v for k, v in data.items() if k in EvalRow.model_fields}
        self.rows.append(EvalRow(nodeid=report.nodeid, verdict=verdict, message=message, **fields))

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
        from harness import __version__

        return EvalReport(
            harness_version=__version__, record_mode=self.record_mode, rows=tuple(self.rows)
        ).sorted()

    def write(self, path: Path) -> None:
        self.report().write(path)


def _row_data(report: pytest.TestReport) -> dict[str, Any] | None:
    for name, value in report.user_properties:
        if name == ROW_PROPERTY:
            data = json.loads(value) if isinstance(value, str) else value
            return data if isinstance(data, dict) else None
    return None


def _message(report: pytest.TestReport) -> str:
    if report.skipped and isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])[:300]
    text = str(report.longreprtext or "")
    lines = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    if lines:
        return " ".join(lines)[:300]
    tail = text.strip().splitlines()
    return tail[-1][:300] if tail else ""
