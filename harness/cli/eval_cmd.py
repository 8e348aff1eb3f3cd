"""``harness eval``: run the scenario evals, compare reports, merge shards."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from harness.cli.main import app, fail

if TYPE_CHECKING:
    from harness.evals import EvalReport

__all__ = ["eval_command"]

_HELP = """Run the scenario evals (replay by default) and print a table.

\b
harness eval [--report PATH] [--epochs N] [--evals-dir DIR] [--baseline PATH]
             [PYTEST ARGS...]
    PYTEST ARGS pass through: -n auto, -k edit, --harness-provider openai,
    --harness-model MODEL, --record-mode once, --harness-base-url URL, ...
    --baseline PATH: then compare with that report; exit 1 on a regression.
    --epochs N: run each eval N times (rows show passes/runs and a Wilson 95%
    interval); replay serves epoch k its own <test>[epoch-k].yaml cassette when
    one was recorded, else the single recording; recording records each epoch.
    --max-cost USD: when recording (--record-mode ...), skip the remaining evals
    once the estimated spend (token usage x price table) reaches USD.
harness eval --mutants [--fail-on survivors] [PYTEST ARGS...]
    Replay every recorded eval against perturbed model responses derived from
    its cassette (offline) and show which mutants each eval killed.
harness eval compare OLD NEW [--fail-on regression|weaker|change|slower|never]
             [--alpha 0.05] [--max-drop 0.5] [--json]
    Cases pair by (case, provider, model role); epochs fold into pass rates.
    regression: a significant drop (one-sided Fisher exact, p < alpha), or every
    old run passed and the rate fell by >= max-drop; weaker: a smaller drop.
    A case only one report ran is "not run"; durations count only for "slower".
    Exit codes: 0 ok, 1 regression, 3 weaker, 4 other change, 5 slower, 2 usage
    error. Each --fail-on level also fails on the graver findings.
harness eval merge REPORT... --output PATH
"""


@app.command(
    "eval",
    help=_HELP,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
    add_help_option=False,
)
def eval_command(ctx: typer.Context) -> None:
    args = list(ctx.args)
    if args[:1] == ["compare"]:
        _compare(args[1:])
    elif args[:1] == ["merge"]:
        _merge(args[1:])
    elif args[:1] in (["--help"], ["-h"]):
        typer.echo(ctx.get_help())
    else:
        _run(args)


def _run(args: list[str]) -> None:
    from harness.core.errors import HarnessError
    from harness.evals import (
        compare_reports,
        load_prices,
        load_report,
        render_pass_rates,
        render_table,
        run_evals,
    )

    parser = argparse.ArgumentParser(prog="harness eval", add_help=False)
    parser.add_argument("--report", type=Path, default=None)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--evals-dir", type=Path, default=Path("evals"))
    parser.add_argument("--baseline", type=Path, default=None)
    parser.add_argument("--mutants", action="store_true")
    parser.add_argument("--fail-on", choices=("survivors", "never"), default=None)
    parser.add_argument("--max-cost", type=float, default=None)
    known, passthrough = parser.parse_known_args(args)
    if known.max_cost is not None:
        passthrough += ["--harness-max-cost", str(known.max_cost)]
    if known.mutants and known.baseline is not None:
        fail("--baseline compares eval rows; run it without --mutants")
    if known.fail_on is not None and not known.mutants:
        fail("--fail-on survivors applies to --mutants; use `harness eval compare` otherwise")
    baseline: EvalReport | None = None
    try:
        if known.baseline is not None:
            baseline = load_report(known.baseline)  # before running: a bad path fails fast
        run = run_evals(
            passthrough,
            evals_dir=known.evals_dir,
            report_path=known.report,
            epochs=known.epochs,
            mutants=known.mutants,
        )
    except HarnessError as exc:
        fail(str(exc))
    typer.echo("")
    if known.mutants:
        _show_mutants(run.report, run.paths, ok=run.ok, fail_on=known.fail_on or "never")
        return
    if run.report.rows:
        typer.echo(render_table(run.report))
        if known.epochs > 1:
            typer.echo(render_pass_rates(run.report))
    else:
        typer.echo("no eval ran (is anything marked @pytest.mark.eval under the evals folder?)")
    typer.echo(f"report: {', '.join(str(p) for p in run.paths)}")
    regressed = False
    if baseline is not None:
        comparison = compare_reports(baseline, run.report, prices=load_prices())
        typer.echo(f"\ncompared with the baseline {known.baseline}:")
        typer.echo(comparison.render())
        regressed = bool(comparison.regressions)
    if not run.ok or regressed:
        raise typer.Exit(1)


def _show_mutants(report: EvalReport, paths: tuple[Path, ...], *, ok: bool, fail_on: str) -> None:
    from harness.evals import MutantStatus, render_mutants, summarize_mutants

    typer.echo(render_mutants(report))
    typer.echo(f"report: {', '.join(str(p) for p in paths)}")
    summaries = summarize_mutants(report.mutants)
    failing = [s for s in summaries if s.failing]
    if not ok:
        raise typer.Exit(1)  # pytest could not run the mutants (see its output above)
    if fail_on == "survivors" and all(s.status is MutantStatus.NOT_MUTATED for s in summaries):
        typer.echo("--fail-on survivors: no eval was mutated, so none has shown it can fail")
        raise typer.Exit(1)
    if fail_on == "survivors" and failing:
        names = ", ".join(f"{s.scenario} [{s.target}]" for s in failing)
        typer.echo(f"--fail-on survivors: {len(failing)} eval(s) let mutants through: {names}")
        raise typer.Exit(1)


def _compare(args: list[str]) -> None:
    from harness.core.errors import HarnessError
    from harness.evals import FailOn, GateSettings, compare_reports, load_prices, load_report

    parser = argparse.ArgumentParser(
        prog="harness eval compare",
        description="Compare two eval reports as a gate. Exit codes: 0 ok, 1 regression, "
        "3 weaker, 4 other change, 5 slower, 2 usage error; each --fail-on level also fails "
        "on the graver findings.",
    )
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--fail-on", choices=[f.value for f in FailOn], default="never")
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance of the one-sided Fisher test"
    )
    parser.add_argument(
        "--max-drop",
        type=float,
        default=0.5,
        help="a case that passed every old run regresses when its rate falls this much",
    )
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    known = parser.parse_args(args)
    try:
        settings = GateSettings(alpha=known.alpha, max_drop=known.max_drop)
    except ValueError as exc:
        fail(str(exc))
    try:
        comparison = compare_reports(
            load_report(known.old), load_report(known.new), settings, prices=load_prices()
        )
    except HarnessError as exc:
        fail(str(exc))
    typer.echo(comparison.to_json() if known.json else comparison.render())
    code = comparison.exit_code(FailOn(known.fail_on))
    if code:
        raise typer.Exit(code)


def _merge(args: list[str]) -> None:
    from harness.core.errors import HarnessError
    from harness.evals import merge_reports, render_table

    parser = argparse.ArgumentParser(prog="harness eval merge")
    parser.add_argument("reports", type=Path, nargs="+")
    parser.add_argument("--output", type=Path, required=True)
    known = parser.parse_args(args)
    try:
        merged = merge_reports(known.reports)
    except HarnessError as exc:
        fail(str(exc))
    merged.write(known.output)
    typer.echo(render_table(merged))
    typer.echo(f"merged {len(known.reports)} report(s) into {known.output}")
