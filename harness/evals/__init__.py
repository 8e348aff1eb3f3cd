"""Scenario evals: the report model, running them, tables, the upgrade diff, mutants."""

from harness.evals.aggregate import CaseRuns, aggregate_rows, render_rate
from harness.evals.compare import Change, Comparison, compare_reports
from harness.evals.cost import TokenUsage, model_cost, render_cost, usage_cost
from harness.evals.gate import FailOn, GateSettings, RateVerdict, Status, judge_rates
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
    load_report,
)
from harness.evals.runner import EvalRun, merge_reports, run_evals
from harness.evals.stats import Interval, fisher_drop_p, wilson_interval
from harness.evals.table import render_pass_rates, render_table

__all__ = [
    "AGENT_ROLE",
    "REPORT_SCHEMA_VERSION",
    "CaseRuns",
    "Change",
    "Comparison",
    "EvalMutants",
    "EvalReport",
    "EvalRow",
    "EvalRun",
    "FailOn",
    "GateSettings",
    "Interval",
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
    "compare_reports",
    "default_prices",
    "derive_mutants",
    "fisher_drop_p",
    "judge_rates",
    "load_prices",
    "load_report",
    "merge_reports",
    "model_cost",
    "render_cost",
    "render_mutants",
    "render_pass_rates",
    "render_rate",
    "render_table",
    "run_evals",
    "summarize_mutants",
    "usage_cost",
    "wilson_interval",
]
