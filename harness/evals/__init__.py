"""Scenario evals: the report model, running them, tables, the upgrade diff, mutants."""

from harness.evals.cases import Case, CaseChecks, load_case_file, load_cases
from harness.evals.checks import CaseRun, check_case
from harness.evals.compare import Change, Comparison, compare_reports
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
from harness.evals.provenance import Source, cassette_source
from harness.evals.report import REPORT_SCHEMA_VERSION, EvalReport, EvalRow, Verdict, load_report
from harness.evals.runner import EvalRun, merge_reports, run_evals
from harness.evals.table import render_pass_rates, render_table

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "Case",
    "CaseChecks",
    "CaseRun",
    "Change",
    "Comparison",
    "EvalMutants",
    "EvalReport",
    "EvalRow",
    "EvalRun",
    "JudgeFormatError",
    "JudgeResult",
    "Mutant",
    "MutantExhaustedError",
    "MutantOutcome",
    "MutantResult",
    "MutantStatus",
    "PositionalProvider",
    "Source",
    "Verdict",
    "cassette_mutants",
    "cassette_source",
    "check_case",
    "compare_reports",
    "derive_mutants",
    "load_case_file",
    "load_cases",
    "load_report",
    "merge_reports",
    "render_mutants",
    "render_pass_rates",
    "render_table",
    "run_evals",
    "run_judge",
    "summarize_mutants",
]
