"""``harness eval``: run the scenario evals, compare reports, merge shards."""

from __future__ import annotations

import importlib
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from typer._click.core import Context
from typer.core import TyperGroup

from harness.cli._errors import EXIT_USAGE, fail
from harness.cli._gc_pause import collector_paused

# harness.evals.DEFAULT_MIN_KILL_RATE, spelled here so `harness --help` imports no evals.
DEFAULT_MIN_KILL_RATE = 0.5

if TYPE_CHECKING:
    from harness.evals import EvalReport

__all__ = ["eval_app"]

# pytest's exit codes (pytest.ExitCode), without importing pytest on every call.
_PYTEST_USAGE_ERROR = 4
_PYTEST_NO_TESTS = 5
_EXIT_INTERRUPTED = 130  # as harness.cli._errors documents for Ctrl-C

_HELP = """Run the scenario evals (replay by default) and print a table.

\b
harness eval [OPTIONS] [PYTEST ARGS...]
    Unknown options and arguments pass through to pytest: -n auto, -k edit,
    --harness-provider openai, --harness-model MODEL, --record-mode once,
    --harness-base-url URL, ...  (put `--` before them to be explicit).
    --epochs N: run each eval N times (rows show passes/runs, a Wilson 95%
    interval and pass^k, all k runs pass; the suite's pass^k has an interval
    over cases); epochs count from 1: replay serves epoch k >= 2 its own
    <test>[epochk].yaml cassette when one was recorded, else the single
    recording; recording records each epoch.
    --sequential (with --epochs N): skip a case's remaining epochs once they
    cannot change its verdict: a failure decides its pass/fail, and with
    --baseline its compare status must be the same whatever the rest do.
    Exact, no statistics; stopped epochs are skipped rows marked stopped.
    --max-cost USD: when recording, skip the remaining evals once the estimated
    spend (token usage x price table) reaches USD.
harness eval compare OLD NEW [--fail-on regression (default)|weaker|change|slower|never]
             [--alpha 0.05] [--max-drop 0.5] [--power 0.8] [--json]
    Cases pair by (case, provider, model role, test file and function);
    epochs fold into pass rates. A drop smaller than the runs detect at
    --power is inconclusive (needs >= N epochs), never weaker or same.
    With 2+ runs a side, pass^k falling beyond its interval (a case's, or the
    suite's over cases) is a regression.
    Exit codes: 0 ok, 1 regression, 3 weaker, 6 inconclusive (--fail-on weaker
    and below), 4 other change, 5 slower.
harness eval --mutants [--fail-on weak|survivors|never] [--min-kill-rate 0.5]
    Exit 1 when an eval cannot fail, fails its control or kills fewer of its
    mutants than --min-kill-rate (weak, the default gate); survivors: also
    when any mutant survives.
harness eval merge REPORT... --output PATH
harness eval prune --keep N [--reports-dir .harness/reports] [--dry-run]
    Delete all but the N newest reports, with the trace files only they name.

\b
Exit codes: 0 every eval passed, 1 an eval failed or regressed,
2 bad usage (including arguments pytest refused).
"""


class FailOnMutants(StrEnum):
    """When ``harness eval --mutants`` exits 1.

    ``weak`` (the default): an eval that cannot fail, kills fewer mutants than
    ``--min-kill-rate`` or fails its control; ``survivors``: also any survivor.
    """

    SURVIVORS = "survivors"
    WEAK = "weak"
    NEVER = "never"


class FailOnCompare(StrEnum):
    """When ``harness eval compare`` fails: a finding at this level or a graver one.

    The values of ``harness.evals.FailOn``, spelled here so that ``harness --help``
    imports no eval machinery.
    """

    REGRESSION = "regression"
    WEAKER = "weaker"
    CHANGE = "change"
    SLOWER = "slower"
    NEVER = "never"


class _EvalGroup(TyperGroup):
    """A group whose arguments, unless they name a sub-command, go to pytest.

    ``harness eval -k edit`` must keep working: click would read ``-k`` as a
    sub-command name, so anything that is not ``compare`` or ``merge`` is handed
    back to the group callback as pass-through arguments.
    """

    def parse_args(self, ctx: Context, args: list[str]) -> list[str]:
        if args and args[0] in self.commands:
            # `compare OLD NEW --fail-on regression`: every option after the
            # sub-command's name is the sub-command's, not the group's.
            ctx.allow_interspersed_args = False
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
    # Interspersed: harness's own options may follow pytest's (`--record-mode rewrite
    # --epochs 2`); a group would otherwise stop at the first bare word.
    context_settings={
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "allow_interspersed_args": True,
    },
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
        typer.Option(
            help="With --mutants: exit 1 on an eval that cannot fail, is weak or fails its "
            "control (weak, the default), also on any survivor (survivors), or never."
        ),
    ] = None,
    min_kill_rate: Annotated[
        float | None,
        typer.Option(
            help="With --mutants: an eval that kills fewer of its mutants than this share "
            "(default 0.5) is weak.",
            min=0.0,
            max=1.0,
        ),
    ] = None,
    max_cost: Annotated[
        float | None,
        typer.Option(
            help="When recording: skip the remaining evals once the estimated spend "
            "(token usage x price table) reaches this many USD.",
            min=0.0,
        ),
    ] = None,
    sequential: Annotated[
        bool,
        typer.Option(
            "--sequential",
            help="With --epochs N: stop a case's epochs once the rest cannot change its "
            "verdict (its pass/fail; with --baseline also its compare status).",
        ),
    ] = False,
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
        fail(
            f"--fail-on {fail_on.value} applies to --mutants; use `harness eval compare` otherwise"
        )
    if min_kill_rate is not None and not mutants:
        fail("--min-kill-rate applies to --mutants; add --mutants")
    if sequential and mutants:
        fail("--sequential stops repeated epochs; run --mutants without it")
    if sequential and epochs < 2:
        fail("--sequential stops repeated epochs early; give --epochs N with N >= 2")
    if report is not None:
        _check_report_target(report)
    _run(
        list(ctx.args),
        report=report,
        epochs=epochs,
        evals_dir=evals_dir,
        baseline=baseline,
        mutants=mutants,
        fail_on=fail_on or FailOnMutants.WEAK,
        min_kill_rate=DEFAULT_MIN_KILL_RATE if min_kill_rate is None else min_kill_rate,
        max_cost=max_cost,
        sequential=sequential,
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
    min_kill_rate: float,
    max_cost: float | None,
    sequential: bool = False,
) -> None:
    from harness.evals import run_evals

    old = None
    if baseline is not None:  # loaded before running: a bad baseline path fails fast
        from harness.evals import load_gate_report

        old = load_gate_report(baseline)
    if max_cost is not None:
        args = [*args, "--harness-max-cost", str(max_cost)]
    from harness.evals.interrupt import EvalInterrupted

    try:
        run = run_evals(
            args,
            evals_dir=evals_dir,
            report_path=report,
            epochs=epochs,
            mutants=mutants,
            meanwhile=_import_what_follows,
            sequential=sequential,
            baseline=baseline,
        )
    except EvalInterrupted as exc:
        fail(str(exc), code=_EXIT_INTERRUPTED)
    from harness.evals import compare_reports, load_prices, render_pass_rates, render_table

    if run.exit_code == _PYTEST_USAGE_ERROR:
        # pytest printed its own usage error above; say whose arguments were refused.
        fail(
            f"pytest refused the arguments {' '.join(args) or '(none)'} (see its message "
            "above); `harness eval --help` lists harness's own options",
            code=EXIT_USAGE,
        )
    typer.echo("")
    if mutants:
        _show_mutants(
            run.report, run.paths, ok=run.ok, fail_on=fail_on, min_kill_rate=min_kill_rate
        )
        return
    if run.report.rows:
        typer.echo(render_table(run.report))
        if epochs > 1:
            typer.echo(render_pass_rates(run.report))
        if sequential:
            from harness.evals.sequential import render_stops

            typer.echo(render_stops(run.report.rows))
    elif run.exit_code in (0, _PYTEST_NO_TESTS):
        fail(
            f"no eval ran under {evals_dir}: nothing there is marked @pytest.mark.eval, or "
            "-k/-m deselected every eval; point --evals-dir at your evals (no report written)",
            code=EXIT_USAGE,
        )
    else:
        fail(
            f"pytest stopped with exit code {run.exit_code} before any eval ran (see its "
            "output above; no report written)",
            code=1,
        )
    _echo_paths(run.paths)
    _echo_imports(run.report)
    regressed = False
    if old is not None:
        comparison = compare_reports(old, run.report, prices=load_prices())
        typer.echo(f"\ncompared with the baseline {baseline}:")
        typer.echo(comparison.render())
        regressed = comparison.regressed  # a case, or the suite's pass^k
    if not run.ok or regressed:
        raise typer.Exit(1)


def _import_what_follows() -> None:
    """The report model, the tables and compare: imported while pytest starts up, on
    the other core, instead of before it (0.3 s of every ``harness eval``)."""
    evals = importlib.import_module("harness.evals")
    # One name of each module: the package resolves it from its module (lazily).
    for name in ("compare_reports", "summarize_mutants", "render_mutants", "render_table"):
        getattr(evals, name)


def _echo_imports(report: EvalReport) -> None:
    """Import time, once per run: it is kept out of the rows' durations."""
    paid = [row.import_s for row in report.rows if row.import_s > 0]
    if sum(paid) >= 0.1:
        typer.echo(f"imports: {sum(paid):.2f} s in {len(paid)} row(s), left out of their durations")


def _echo_paths(paths: tuple[Path, ...]) -> None:
    typer.echo(f"report: {', '.join(str(p) for p in paths) or '(none written)'}")


def _show_mutants(
    report: EvalReport,
    paths: tuple[Path, ...],
    *,
    ok: bool,
    fail_on: FailOnMutants,
    min_kill_rate: float,
) -> None:
    from harness.evals import MutantStatus, render_mutants, summarize_mutants

    typer.echo(render_mutants(report, min_kill_rate))
    _echo_paths(paths)
    summaries = summarize_mutants(report.mutants, min_kill_rate)
    failing = [s for s in summaries if s.failing]
    if not ok:
        raise typer.Exit(1)  # pytest could not run the mutants (see its output above)
    if fail_on is FailOnMutants.SURVIVORS:
        if all(s.status is MutantStatus.NOT_MUTATED for s in summaries):
            typer.echo("--fail-on survivors: no eval was mutated, so none has shown it can fail")
            raise typer.Exit(1)
        if failing:
            names = ", ".join(f"{s.scenario} [{s.target}]" for s in failing)
            typer.echo(f"--fail-on survivors: {len(failing)} eval(s) let mutants through: {names}")
            raise typer.Exit(1)
    little = [s for s in summaries if s.proves_little]
    if fail_on is FailOnMutants.WEAK and little:
        names = ", ".join(f"{s.scenario} [{s.target}] {s.status.value}" for s in little)
        typer.echo(
            f"{len(little)} eval(s) cannot show they fail when the model misbehaves: {names} "
            f"(minimum kill rate {min_kill_rate:.0%}; --fail-on never only reports)"
        )
        raise typer.Exit(1)


@eval_app.command("compare")
def compare(
    old: Annotated[Path, typer.Argument(help="The earlier report (JSON).")],
    new: Annotated[Path, typer.Argument(help="The later report (JSON).")],
    fail_on: Annotated[
        FailOnCompare,
        typer.Option(
            help="Exit non-zero on this finding or a graver one: regression 1, weaker 3 "
            "(or inconclusive 6), change 4, slower 5; `never` only reports."
        ),
    ] = FailOnCompare.REGRESSION,
    alpha: Annotated[
        float, typer.Option(help="Significance of the one-sided Fisher exact test.")
    ] = 0.05,
    max_drop: Annotated[
        float,
        typer.Option(
            help="A case that passed every old run regresses when its rate falls this much."
        ),
    ] = 0.5,
    power: Annotated[
        float,
        typer.Option(help="A drop smaller than the runs detect with this power is inconclusive."),
    ] = 0.8,
    as_json: Annotated[bool, typer.Option("--json", help="Print the comparison as JSON.")] = False,
) -> None:
    """Compare two eval reports as a gate: regressions, weaker cases, changes, not run.

    Exit codes: 0 ok, 1 regression, 3 weaker, 6 inconclusive, 4 other change,
    5 slower, 2 usage error; each --fail-on level also fails on the graver
    findings (weaker includes inconclusive). It fails on a
    regression by default, as `harness eval --baseline` does.
    """
    from harness.evals import FailOn, GateSettings, compare_reports, load_gate_report, load_prices

    try:
        settings = GateSettings(alpha=alpha, max_drop=max_drop, power=power)
    except ValueError as exc:
        fail(str(exc), code=EXIT_USAGE)
    with collector_paused():
        comparison = compare_reports(
            load_gate_report(old), load_gate_report(new), settings, prices=load_prices()
        )
        typer.echo(comparison.to_json() if as_json else comparison.render())
    code = comparison.exit_code(FailOn(fail_on.value))
    if code:
        raise typer.Exit(code)


@eval_app.command("merge")
def merge(
    reports: Annotated[list[Path], typer.Argument(help="Shard reports to combine.")],
    output: Annotated[Path, typer.Option(help="Where to write the merged report.")],
) -> None:
    """Combine shard reports (e.g. pytest-split groups) into one; duplicates are refused."""
    from harness.evals import merge_reports, render_table

    with collector_paused():
        merged = merge_reports(reports)
        merged.write(output)
        typer.echo(render_table(merged))
    typer.echo(f"merged {len(reports)} report(s) into {output}")
