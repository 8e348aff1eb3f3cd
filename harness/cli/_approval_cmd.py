"""``harness approvals [show ID [--full]] | approve | reject``: decide paused runs."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from harness.cli._application import (
    check_session_key,
    configure_logging,
    exit_code_for,
    load_application,
    print_result,
    print_stops_once,
)
from harness.cli._errors import EXIT_FAILURE
from harness.cli._root import app

__all__ = ["approvals", "approvals_app", "approve", "reject", "show"]

SessionOption = Annotated[
    str | None,
    typer.Option(
        help="Session the approval must belong to (default: the approval's own).",
        callback=check_session_key,
    ),
]


def _describe(record: Any) -> str:
    from harness.approval.preview import escape_line, render_preview

    lines = [
        f"{record.approval_id}  {record.status.value:8s}  session={record.session_key}  "
        f"tool={escape_line(record.tool_name)}  "
        f"expires={record.expires_at.isoformat(timespec='seconds')}",
        f"    workdir: {escape_line(record.workdir or '(not recorded)')}",
    ]
    if record.decided_by:
        decided = record.decided_at.isoformat(timespec="seconds") if record.decided_at else "?"
        lines.append(f"    decided: {record.decision} by {record.decided_by} at {decided}")
    reasons = "; ".join(escape_line(reason) for reason in record.risk_reasons)
    lines.append(f"    reasons: {reasons or '(none given)'}")
    lines.append(render_preview(record.preview, indent="    ", approval_id=record.approval_id))
    return "\n".join(lines)


approvals_app = typer.Typer(
    no_args_is_help=False,
    rich_markup_mode=None,
)


@approvals_app.callback(invoke_without_command=True)
def approvals(
    ctx: typer.Context,
    session: Annotated[
        str | None, typer.Option(help="Only this session.", callback=check_session_key)
    ] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Include decided ones.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the records (with previews) as JSON.")
    ] = False,
) -> None:
    """List pending approvals: id, session, tool, reasons, expiry and what would run.

    Needs only the state dir: no provider is built (HARNESS_SCRIPT, keys).
    `harness approvals show ID --full` shows one approval with nothing cut."""
    if ctx.invoked_subcommand is not None:
        return
    from harness.app import open_approval_store
    from harness.settings import Settings

    settings = Settings.from_env()
    configure_logging(settings.log_level)
    store = open_approval_store(settings)
    records = store.list(session)
    refused = store.refused(session)
    shown = [r for r in records if show_all or r.status.value == "pending"]
    # Files that fail verification are never listed as decidable, but hiding them
    # would hide an attack: say so on stderr.
    for path, why in refused:
        typer.echo(f"warning: ignored {path}: {why}", err=True)
    if as_json:
        typer.echo(json.dumps([r.model_dump(mode="json") for r in shown], indent=2))
        return
    if not shown:
        typer.echo("no pending approvals" if not show_all else "no approvals")
        return
    for record in shown:
        typer.echo(_describe(record))


@approvals_app.command("show")
def show(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Nothing cut: the whole call and every held change, diffed with the larger "
            "budget (the old side read from the workdir now).",
        ),
    ] = False,
) -> None:
    """Show APPROVAL_ID as the approver sees it; --full shows all of it, nothing cut.

    Needs only the state dir: no provider is built."""
    from harness.app import open_approval_store
    from harness.approval.held import full_changes_preview
    from harness.approval.preview import render_changeset, render_full_call
    from harness.settings import Settings

    settings = Settings.from_env()
    configure_logging(settings.log_level)
    record = open_approval_store(settings).load(approval_id)
    typer.echo(_describe(record))
    if not full:
        return
    typer.echo("\nThe whole approval, nothing cut:")
    typer.echo(render_full_call(record.tool_name, record.arguments, indent="    "))
    if record.held is not None:
        whole = full_changes_preview(record.held, record.workdir, record.output)
        typer.echo("\n".join(render_changeset(whole, indent="    ")))


app.add_typer(approvals_app, name="approvals")


def _confirmed(approval_id: str, yes: bool) -> bool:
    """The human's last word after the preview: asked only of a terminal, never of a script.

    Without a terminal on stdin (CI, a pipe, a test) nobody could answer, so the
    command goes ahead as before; ``--yes`` skips the question on a terminal too.
    """
    if yes or sys.stdin is None or not sys.stdin.isatty():
        return True
    if typer.confirm(f"Run {approval_id} as shown above?", default=False):
        return True
    typer.echo(
        f"not approved: {approval_id} is still pending (approve it later, or "
        f"harness reject {approval_id} REASON)",
        err=True,
    )
    return False


def _decide(
    approval_id: str, decision: str, session: str | None, reason: str | None, *, yes: bool = True
) -> None:
    application = load_application()
    print_stops_once()
    try:
        record = application.approvals.load(approval_id)
        verb = "Approving" if decision == "approve" else "Rejecting"
        typer.echo(f"{verb}:\n{_describe(record)}")
        if not _confirmed(approval_id, yes):
            raise typer.Exit(EXIT_FAILURE)
        key = session or record.session_key
        result = application.resume_approval(
            approval_id, decision, session=key, reason=reason, decided_by="cli"
        )
    finally:
        application.close()
    print_result(result, as_json=False)
    code = exit_code_for(result)
    if code:
        raise typer.Exit(code)


@app.command()
def approve(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    session: SessionOption = None,
    yes: Annotated[
        bool,
        typer.Option(
            "--yes",
            "-y",
            help="Do not ask before running (on a terminal it asks; without one it never does).",
        ),
    ] = False,
) -> None:
    """Approve APPROVAL_ID: show what will run, ask (on a terminal), run the frozen call
    and continue the run."""
    _decide(approval_id, "approve", session, None, yes=yes)


@app.command()
def reject(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    reason: Annotated[str | None, typer.Argument(help="Why (the model reads it).")] = None,
    session: SessionOption = None,
) -> None:
    """Reject APPROVAL_ID: the call is not executed and the model is told why."""
    _decide(approval_id, "reject", session, reason)
