"""Scenario evals: the report model, running them, tables and the upgrade diff."""

from harness.evals.compare import Change, Comparison, compare_reports
from harness.evals.report import REPORT_SCHEMA_VERSION, EvalReport, EvalRow, Verdict, load_report
from harness.evals.runner import EvalRun, merge_reports, run_evals
from harness.evals.table import render_pass_rates, render_table

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "Change",
    "Comparison",
    "EvalReport",
    "EvalRow",
    "EvalRun",
    "Verdict",
    "compare_reports",
    "load_report",
    "merge_reports",
    "render_pass_rates",
    "render_table",
    "run_evals",
]
