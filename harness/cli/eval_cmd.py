"""``harness eval``: run the scenario evals, compare reports, merge shards."""

from __future__ import annotations

import argparse
from pathlib import Path

import typer

from harness.cli.main import app, fail

__all__ = ["eval_command"]

_HELP = """Run the scenario evals (replay by default) and print a table.

\b
harness eval [--report PATH] [--epochs N] [--evals-dir DIR] [PYTEST ARGS...]
    PYTEST ARGS pass through: -n auto, -k edit, --harness-provider openai,
    --harness-model MODEL, --record-mode once, --harness-base-url URL, ...
harness eval compare OLD NEW [--fail-on regression]
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
    from harness.evals import render_pass_rates, render_table, run_evals

    parser = argparse.ArgumentParser(prog="harness eval", add_help=False)
    parser.add_argument("--report", type=Path, default=None)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--evals-dir", type=Path, default=Path("evals"))
    known, passthrough = parser.parse_known_args(args)
    try:
        run = run_evals(
            passthrough, evals_dir=known.evals_dir, report_path=known.report, epochs=known.epochs
        )
    except HarnessError as exc:
        fail(str(exc))
    typer.echo("")
    if run.report.rows:
        typer.echo(render_table(run.report))
        if known.epochs > 1:
            typer.echo(render_pass_rates(run.report))
    else:
        typer.echo("no eval ran (is anything marked @pytest.mark.eval under the evals folder?)")
    typer.echo(f"report: {', '.join(str(p) for p in run.paths)}")
    if not run.ok:
        raise typer.Exit(1)


def _compare(args: list[str]) -> None:
    from harness.core.errors import HarnessError
    from harness.evals import compare_reports, load_report

    parser = argparse.ArgumentParser(prog="harness eval compare")
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--fail-on", choices=("regression", "change", "never"), default="never")
    known = parser.parse_args(args)
    try:
        comparison = compare_reports(load_report(known.old), load_report(known.new))
    except HarnessError as exc:
        fail(str(exc))
    typer.echo(comparison.render())
    if known.fail_on == "regression" and comparison.regressions:
        raise typer.Exit(1)
    if known.fail_on == "change" and comparison.changes:
        raise typer.Exit(1)


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
