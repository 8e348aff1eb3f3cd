"""``harness eval``: run the scenario evals, compare reports, merge shards."""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from typer._click.core import Context
from typer.core import TyperGroup

from harness.cli.errors import EXIT_USAGE, fail

if TYPE_CHECKING:
    from harness.evals import Comparison, EvalReport, EvalRow

__all__ = ["eval_app"]

# pytest's exit codes (pytest.ExitCode), without importing pytest on every call.
_PYTEST_USAGE_ERROR = 4
_PYTEST_NO_TESTS = 5

_HELP = """Run the scenario evals (replay by default) and print a table.

\b
harness eval [OPTIONS] [PYTEST ARGS...]
    Unknown options and arguments pass through to pytest: -n auto, -k edit,
    --harness-provider openai, --harness-model MODEL, --record-mode once,
    --harness-base-url URL, ...  (put `--` before them to be explicit).
harness eval compare OLD NEW [--fail-on regression] [--json]
harness eval merge REPORT... --output PATH

\b
Exit codes: 0 every eval passed, 1 an eval failed or regressed,
2 bad usage (including arguments pytest refused).
"""


class FailOnMutants(StrEnum):
    """When ``harness eval --mutants`` exits 1."""

    SURVIVORS = "survivors"
    NEVER = "never"


class FailOnCompare(StrEnum):
    """When ``harness eval compare`` exits 1."""

    REGRESSION = "regression"
    CHANGE = "change"
    NEVER = "never"


class _EvalGroup(TyperGroup):
    """A group whose arguments, unless they name a sub-command, go to pytest.

    ``harness eval -k edit`` must keep working: click would read ``-k`` as a
    sub-command name, so anything that is not ``compare`` or ``merge`` is handed
    back to the group callback as pass-through arguments.
    """

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        super().parse_args(ctx, args)
        protected = ctx._protected_args
        if protected and protected[0] not in self.commands:
            ctx.args = [*protected, *ctx.args]
            ctx._protected_args = []
        return ctx.args


eval_app = typer.Typer(cls=_EvalGroup, rich_markup_mode=None, add_completion=False)


@eval_app.callback(
    invoke_without_command=True,
    help=_HELP,
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def eval_command(
    ctx: typer.Context,
    report: Annotated[
        Path | None, typer.Option(help="Write the report to exactly this file.")
    ] = None,
    epochs: Annotated[int, typer.Option(help="Repeat every eval N times.", min=1)] = 1,
    evals_dir: Annotated[Path, typer.Option(help="Folder of the evals.")] = Path("evals"),
    baseline: Annotated[
        Path | None,
        typer.Option(help="Compare with this report afterwards; exit 1 on a regression."),
    ] = None,
    mutants: Annotated[
        bool,
        typer.Option(
            "--mutants",
            help="Replay every recorded eval against perturbed responses of its cassette "
            "(offline) and show which mutants each eval killed.",
        ),
    ] = False,
    fail_on: Annotated[
        FailOnMutants | None,
        typer.Option(help="With --mutants: exit 1 when an eval lets mutants survive."),
    ] = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        defaults = {param.name: param.default for param in ctx.command.params}
        given = [name for name, value in ctx.params.items() if value != defaults.get(name)]
        if given or ctx.args:
            shown = " ".join([*(f"--{n.replace('_', '-')}" for n in given), *ctx.args])
            fail(
                f"{shown} belong(s) to running evals, not to `harness eval "
                f"{ctx.invoked_subcommand}`; see `harness eval {ctx.invoked_subcommand} --help`"
            )
        return
    if mutants and baseline is not None:
        fail("--baseline compares eval rows; run it without --mutants")
    if fail_on is not None and not mutants:
        fail("--fail-on survivors applies to --mutants; use `harness eval compare` otherwise")
    if report is not None:
        _check_report_target(report)
    _run(
        list(ctx.args),
        report=report,
        epochs=epochs,
        evals_dir=evals_dir,
        baseline=baseline,
        mutants=mutants,
        fail_on=fail_on or FailOnMutants.NEVER,
    )


def _check_report_target(report: Path) -> None:
    # Before the evals run (minutes, maybe paid calls), not when writing the result.
    if report.is_dir():
        fail(f"--report {report} is a folder; give the path of the JSON file to write")
    ancestor = next(p for p in report.parents if p.exists())
    if not ancestor.is_dir():
        fail(f"--report {report} cannot be written: {ancestor} is not a folder")


def _run(
    args: list[str],
    *,
    report: Path | None,
    epochs: int,
    evals_dir: Path,
    baseline: Path | None,
    mutants: bool,
    fail_on: FailOnMutants,
) -> None:
    from harness.evals import (
        compare_reports,
        load_report,
        render_pass_rates,
        render_table,
        run_evals,
    )

    # Loaded before running: a bad baseline path fails fast.
    old = load_report(baseline) if baseline is not None else None
    run = run_evals(args, evals_dir=evals_dir, report_path=report, epochs=epochs, mutants=mutants)
    if run.exit_code == _PYTEST_USAGE_ERROR:
        # pytest printed its own usage error above; say whose arguments were refused.
        fail(
            f"pytest refused the arguments {' '.join(args) or '(none)'} (see its message "
            "above); `harness eval --help` lists harness's own options",
            code=EXIT_USAGE,
        )
    typer.echo("")
    if mutants:
        _show_mutants(run.report, run.paths, ok=run.ok, fail_on=fail_on)
        return
    if run.report.rows:
        typer.echo(render_table(run.report))
        if epochs > 1:
            typer.echo(render_pass_rates(run.report))
    elif run.exit_code in (0, _PYTEST_NO_TESTS):
        typer.echo("no eval ran (is anything marked @pytest.mark.eval under the evals folder?)")
    else:
        typer.echo(f"pytest stopped with exit code {run.exit_code} before any eval ran")
    _echo_paths(run.paths)
    regressed = False
    if old is not None:
        comparison = compare_reports(old, run.report)
        typer.echo(f"\ncompared with the baseline {baseline}:")
        typer.echo(comparison.render())
        regressed = bool(comparison.regressions)
    if not run.ok or regressed:
        raise typer.Exit(1)


def _echo_paths(paths: tuple[Path, ...]) -> None:
    typer.echo(f"report: {', '.join(str(p) for p in paths) or '(none written)'}")


def _show_mutants(
    report: EvalReport, paths: tuple[Path, ...], *, ok: bool, fail_on: FailOnMutants
) -> None:
    from harness.evals import MutantStatus, render_mutants, summarize_mutants

    typer.echo(render_mutants(report))
    _echo_paths(paths)
    summaries = summarize_mutants(report.mutants)
    failing = [s for s in summaries if s.failing]
    if not ok:
        raise typer.Exit(1)  # pytest could not run the mutants (see its output above)
    gate = fail_on is FailOnMutants.SURVIVORS
    if gate and all(s.status is MutantStatus.NOT_MUTATED for s in summaries):
        typer.echo("--fail-on survivors: no eval was mutated, so none has shown it can fail")
        raise typer.Exit(1)
    if gate and failing:
        names = ", ".join(f"{s.scenario} [{s.target}]" for s in failing)
        typer.echo(f"--fail-on survivors: {len(failing)} eval(s) let mutants through: {names}")
        raise typer.Exit(1)


@eval_app.command("compare")
def compare(
    old: Annotated[Path, typer.Argument(help="The earlier report (JSON).")],
    new: Annotated[Path, typer.Argument(help="The later report (JSON).")],
    fail_on: Annotated[
        FailOnCompare, typer.Option(help="Exit 1 on a regression, on any change, or never.")
    ] = FailOnCompare.NEVER,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare two eval reports: verdict flips, shape changes, new and gone rows."""
    from harness.evals import compare_reports, load_report

    comparison = compare_reports(load_report(old), load_report(new))
    if as_json:
        typer.echo(json.dumps(_comparison_json(comparison), indent=2))
    else:
        typer.echo(comparison.render())
    if fail_on is FailOnCompare.REGRESSION and comparison.regressions:
        raise typer.Exit(1)
    if fail_on is FailOnCompare.CHANGE and comparison.changes:
        raise typer.Exit(1)


def _comparison_json(comparison: Comparison) -> dict[str, Any]:
    def verdict(row: EvalRow | None) -> str | None:
        return row.verdict.value if row is not None else None

    return {
        "old_sources": [source.value for source in comparison.old_sources],
        "new_sources": [source.value for source in comparison.new_sources],
        "regressions": len(comparison.regressions),
        "changes": [
            {
                "scenario": change.scenario,
                "provider": change.provider,
                "old_verdict": verdict(change.old),
                "new_verdict": verdict(change.new),
                "regression": change.regression,
                "verdict_flip": change.verdict_flip,
                "notes": list(change.notes),
                "shape_diff": list(change.shape_diff),
            }
            for change in comparison.changes
        ],
    }


@eval_app.command("merge")
def merge(
    reports: Annotated[list[Path], typer.Argument(help="Shard reports to combine.")],
    output: Annotated[Path, typer.Option(help="Where to write the merged report.")],
) -> None:
    """Combine shard reports (e.g. pytest-split groups) into one; duplicates are refused."""
    from harness.evals import merge_reports, render_table

    merged = merge_reports(reports)
    merged.write(output)
    typer.echo(render_table(merged))
    typer.echo(f"merged {len(reports)} report(s) into {output}")
