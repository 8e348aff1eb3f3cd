"""Which eval case and provider a trace file belongs to, for the trace list.

A trace knows its session and the provider and model of its model calls, not
the eval case that ran it: the report does. ``harness eval`` keeps a run's
traces in ``<report stem>-traces/`` beside ``<report stem>.json``, and each row
names its own; so a trace in such a folder is named by the row of the report
beside it (by file name, so a moved folder still matches).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import HarnessError
from harness.evals import EvalReport, EvalRow, load_report
from harness.tracing import TraceTree
from harness.view._report_folder import TRACES_SUFFIX

__all__ = ["TraceCase", "trace_cases", "trace_providers"]


@dataclass(frozen=True)
class TraceCase:
    """The eval case (scenario) of a trace, and the provider and model of its row."""

    case: str
    provider: str
    model: str

    @classmethod
    def of(cls, row: EvalRow) -> TraceCase:
        return cls(row.scenario, row.provider, row.model)


def trace_cases(paths: Iterable[Path]) -> dict[Path, TraceCase]:
    """The case of each trace file in ``paths`` that a report beside its folder names."""
    reports: dict[Path, dict[str, TraceCase]] = {}
    found: dict[Path, TraceCase] = {}
    for path in paths:
        folder = path.parent
        if not folder.name.endswith(TRACES_SUFFIX):
            continue
        report = folder.with_name(folder.name.removesuffix(TRACES_SUFFIX) + ".json")
        if report not in reports:
            reports[report] = _cases_by_name(report)
        case = reports[report].get(path.name)
        if case is not None:
            found[path] = case
    return found


def trace_providers(tree: TraceTree) -> list[str]:
    """``provider/model`` of the trace's model calls, in order of first use."""
    seen: dict[str, None] = {}
    for span in tree.walk():
        if span.kind != "llm.call":
            continue
        provider, model = span.attributes.get("provider"), span.attributes.get("model")
        if isinstance(provider, str) and provider:
            seen[f"{provider}/{model}" if isinstance(model, str) and model else provider] = None
    return list(seen)


def _cases_by_name(report: Path) -> dict[str, TraceCase]:
    """Each trace file name the report's rows name, with its row's case; none when
    there is no readable report (the list then shows what the trace itself knows)."""
    try:
        loaded: EvalReport = load_report(report)
    except HarnessError:
        return {}
    return {Path(trace).name: TraceCase.of(row) for row in loaded.rows for trace in row.traces}
