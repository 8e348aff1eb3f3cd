"""``harness eval prune --keep N``: keep the newest reports of the reports folder
(glue over ``harness.view._prune``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli._errors import fail
from harness.cli._eval_cmd import eval_app

__all__ = ["prune"]


@eval_app.command("prune")
def prune(
    keep: Annotated[
        int,
        typer.Option(
            "--keep", metavar="N", help="How many reports to keep: the N newest runs (N >= 1)."
        ),
    ],
    reports_dir: Annotated[
        Path,
        typer.Option(
            "--reports-dir",
            help="The folder of reports (where `harness eval` writes them, and "
            "`harness view DIR` reads them).",
        ),
    ] = Path(".harness/reports"),
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="List what would be deleted; delete nothing.")
    ] = False,
) -> None:
    """Delete all but the N newest eval reports, with the trace files only they name.

    Newest by the run time each report states (else the file's time). A trace
    file another kept report names stays, as does any file outside the folder
    and any *.json that is not a readable report (it is named, left alone).
    """
    from harness.core.errors import HarnessError
    from harness.view import apply_prune, plan_prune

    try:
        plan = plan_prune(reports_dir, keep)
    except HarnessError as exc:
        fail(str(exc))
    verb = "would remove" if dry_run else "removed"
    for skipped in plan.skipped:
        typer.echo(f"left alone {skipped.path}: not a readable report ({skipped.problem})")
    if not plan.removed:
        typer.echo(f"nothing to prune: {len(plan.kept)} report(s) in {reports_dir}, --keep {keep}")
        return
    for report in plan.removed:
        when = f" ({report.when.whole})" if report.when else ""
        traces = f" and {len(report.artifacts)} trace file(s)" if report.artifacts else ""
        typer.echo(f"{verb} {report.path}{when}{traces}")
    size = plan.bytes if dry_run else apply_prune(plan)
    files = sum(len(report.artifacts) for report in plan.removed)
    typer.echo(
        f"{verb} {len(plan.removed)} report(s) and {files} trace file(s), {_size(size)}; "
        f"kept the {len(plan.kept)} newest in {reports_dir}"
        + (" (dry run: nothing deleted)" if dry_run else "")
    )


def _size(count: int) -> str:
    """``1.2 MB (1,234,567 bytes)``: readable, and exact."""
    value, unit = float(count), "bytes"
    for name in ("KB", "MB", "GB"):
        if value < 1000:
            break
        value, unit = value / 1000, name
    shown = f"{count:,} bytes" if unit == "bytes" else f"{value:.1f} {unit} ({count:,} bytes)"
    return shown
