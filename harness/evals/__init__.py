"""Scenario evals: the report model, running them, tables, the upgrade diff, mutants.

Names resolve on first use: ``harness eval`` starts pytest after importing only
the runner, and reads the rest (the report, the tables, compare) while pytest
runs; a module that needs one part never imports them all.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.evals._compare import Change, Comparison, compare_reports
    from harness.evals._cost import TokenUsage, model_cost, render_cost, usage_cost
    from harness.evals._gate import FailOn, GateSettings, RateVerdict, Status, judge_rates
    from harness.evals._mutant_table import render_mutants
    from harness.evals._report import (
        AGENT_ROLE,
        REPORT_SCHEMA_VERSION,
        EvalReport,
        EvalRow,
        Verdict,
        load_gate_report,
        load_report,
    )
    from harness.evals._runner import EvalRun, merge_reports, run_evals
    from harness.evals._stats import Interval, fisher_drop_p, wilson_interval
    from harness.evals._table import render_pass_rates, render_table
    from harness.evals.aggregate import CaseRuns, aggregate_rows, render_rate
    from harness.evals.cases import Case, CaseChecks, load_case_file, load_cases
    from harness.evals.check import Check, CheckContext
    from harness.evals.check_registry import register_check
    from harness.evals.checks import CaseRun, check_case
    from harness.evals.judge import JudgeFormatError, JudgeResult, run_judge
    from harness.evals.mutant_results import (
        EvalMutants,
        MutantOutcome,
        MutantResult,
        MutantStatus,
        summarize_mutants,
    )
    from harness.evals.mutants import MutantExhaustedError, PositionalProvider, cassette_mutants
    from harness.evals.mutations import Mutant, derive_mutants
    from harness.evals.prices import ModelPrice, PriceTable, default_prices, load_prices
    from harness.evals.provenance import Source, cassette_source

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
    "AGENT_ROLE": "_report",
    "Case": "cases",
    "CaseChecks": "cases",
    "CaseRun": "checks",
    "CaseRuns": "aggregate",
    "Change": "_compare",
    "Check": "check",
    "CheckContext": "check",
    "Comparison": "_compare",
    "EvalMutants": "mutant_results",
    "EvalReport": "_report",
    "EvalRow": "_report",
    "EvalRun": "_runner",
    "FailOn": "_gate",
    "GateSettings": "_gate",
    "Interval": "_stats",
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
    "REPORT_SCHEMA_VERSION": "_report",
    "RateVerdict": "_gate",
    "Source": "provenance",
    "Status": "_gate",
    "TokenUsage": "_cost",
    "Verdict": "_report",
    "aggregate_rows": "aggregate",
    "cassette_mutants": "mutants",
    "cassette_source": "provenance",
    "check_case": "checks",
    "compare_reports": "_compare",
    "default_prices": "prices",
    "derive_mutants": "mutations",
    "fisher_drop_p": "_stats",
    "judge_rates": "_gate",
    "load_case_file": "cases",
    "load_cases": "cases",
    "load_prices": "prices",
    "load_gate_report": "_report",
    "load_report": "_report",
    "merge_reports": "_runner",
    "model_cost": "_cost",
    "register_check": "check_registry",
    "render_cost": "_cost",
    "render_mutants": "_mutant_table",
    "render_pass_rates": "_table",
    "render_rate": "aggregate",
    "render_table": "_table",
    "run_evals": "_runner",
    "run_judge": "judge",
    "summarize_mutants": "mutant_results",
    "usage_cost": "_cost",
    "wilson_interval": "_stats",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
