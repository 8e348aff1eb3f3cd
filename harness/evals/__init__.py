"""Scenario evals: the report model, running them, tables, the upgrade diff, mutants.

Names resolve on first use: ``harness eval`` starts pytest after importing only
the runner, and reads the rest (the report, the tables, compare) while pytest
runs; a module that needs one part never imports them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.evals.aggregate import CaseRuns, aggregate_rows, render_rate
    from harness.evals.cases import Case, CaseChecks, load_case_file, load_cases
    from harness.evals.check import Check, CheckContext
    from harness.evals.check_registry import register_check
    from harness.evals.checks import CaseRun, check_case
    from harness.evals.compare import Change, Comparison, compare_reports
    from harness.evals.cost import TokenUsage, model_cost, render_cost, usage_cost
    from harness.evals.gate import FailOn, GateSettings, RateVerdict, Status, judge_rates
    from harness.evals.judge import JudgeFormatError, JudgeResult, run_judge
    from harness.evals.mutant_results import (
        EvalMutants,
        MutantOutcome,
        MutantResult,
        MutantStatus,
        summarize_mutants,
    )
    from harness.evals.mutant_table import render_mutants
    from harness.evals.mutants import MutantExhaustedError, PositionalProvider, cassette_mutants
    from harness.evals.mutations import Mutant, derive_mutants
    from harness.evals.prices import ModelPrice, PriceTable, default_prices, load_prices
    from harness.evals.provenance import Source, cassette_source
    from harness.evals.report import (
        AGENT_ROLE,
        REPORT_SCHEMA_VERSION,
        EvalReport,
        EvalRow,
        Verdict,
        load_gate_report,
        load_report,
    )
    from harness.evals.runner import EvalRun, merge_reports, run_evals
    from harness.evals.stats import Interval, fisher_drop_p, wilson_interval
    from harness.evals.table import render_pass_rates, render_table

__all__ = [
    "AGENT_ROLE",
    "REPORT_SCHEMA_VERSION",
    "Case",
    "CaseChecks",
    "CaseRun",
    "CaseRuns",
    "Change",
    "Check",
    "CheckContext",
    "Comparison",
    "EvalMutants",
    "EvalReport",
    "EvalRow",
    "EvalRun",
    "FailOn",
    "GateSettings",
    "Interval",
    "JudgeFormatError",
    "JudgeResult",
    "ModelPrice",
    "Mutant",
    "MutantExhaustedError",
    "MutantOutcome",
    "MutantResult",
    "MutantStatus",
    "PositionalProvider",
    "PriceTable",
    "RateVerdict",
    "Source",
    "Status",
    "TokenUsage",
    "Verdict",
    "aggregate_rows",
    "cassette_mutants",
    "cassette_source",
    "check_case",
    "compare_reports",
    "default_prices",
    "derive_mutants",
    "fisher_drop_p",
    "judge_rates",
    "load_case_file",
    "load_cases",
    "load_gate_report",
    "load_prices",
    "load_report",
    "merge_reports",
    "model_cost",
    "register_check",
    "render_cost",
    "render_mutants",
    "render_pass_rates",
    "render_rate",
    "render_table",
    "run_evals",
    "run_judge",
    "summarize_mutants",
    "usage_cost",
    "wilson_interval",
]

# Where each name lives (a module of harness.evals).
_HOME = {
    "AGENT_ROLE": "report",
    "Case": "cases",
    "CaseChecks": "cases",
    "CaseRun": "checks",
    "CaseRuns": "aggregate",
    "Change": "compare",
    "Check": "check",
    "CheckContext": "check",
    "Comparison": "compare",
    "EvalMutants": "mutant_results",
    "EvalReport": "report",
    "EvalRow": "report",
    "EvalRun": "runner",
    "FailOn": "gate",
    "GateSettings": "gate",
    "Interval": "stats",
    "JudgeFormatError": "judge",
    "JudgeResult": "judge",
    "ModelPrice": "prices",
    "Mutant": "mutations",
    "MutantExhaustedError": "mutants",
    "MutantOutcome": "mutant_results",
    "MutantResult": "mutant_results",
    "MutantStatus": "mutant_results",
    "PositionalProvider": "mutants",
    "PriceTable": "prices",
    "REPORT_SCHEMA_VERSION": "report",
    "RateVerdict": "gate",
    "Source": "provenance",
    "Status": "gate",
    "TokenUsage": "cost",
    "Verdict": "report",
    "aggregate_rows": "aggregate",
    "cassette_mutants": "mutants",
    "cassette_source": "provenance",
    "check_case": "checks",
    "compare_reports": "compare",
    "default_prices": "prices",
    "derive_mutants": "mutations",
    "fisher_drop_p": "stats",
    "judge_rates": "gate",
    "load_case_file": "cases",
    "load_cases": "cases",
    "load_prices": "prices",
    "load_gate_report": "report",
    "load_report": "report",
    "merge_reports": "runner",
    "model_cost": "cost",
    "register_check": "check_registry",
    "render_cost": "cost",
    "render_mutants": "mutant_table",
    "render_pass_rates": "table",
    "render_rate": "aggregate",
    "render_table": "table",
    "run_evals": "runner",
    "run_judge": "judge",
    "summarize_mutants": "mutant_results",
    "usage_cost": "cost",
    "wilson_interval": "stats",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
