"""``harness approvals | approve | reject``: decide paused runs from the shell."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from harness.cli.application import (
    check_session_key,
    exit_code_for,
    load_application,
    print_result,
    print_stops_once,
)
from harness.cli.root import app

__all__ = ["approvals", "approve", "reject"]

SessionOption = Annotated[
    str | None,
    typer.Option(
        help="Session the approval must belong to (default: the approval's own).",
        callback=check_session_key,
    ),
]


def _describe(record: Any) -> str:
    from harness.approval.preview import render_preview

    lines = [
        f"{record.approval_id}  {record.status.value:8s}  session={record.session_key}  "
        f"tool={record.tool_name}  expires={record.expires_at.isoformat(timespec='seconds')}",
        f"    workdir: {record.workdir or '(not recorded)'}",
    ]
    if record.decided_by:
        decided = record.decided_at.isoformat(timespec="seconds") if record.decided_at else "?"
        lines.append(f"    decided: {record.decision} by {record.decided_by} at {decided}")
    lines.append(f"    reasons: {'; '.join(record.risk_reasons) or '(none given)'}")
    lines.append(render_preview(record.preview, indent="    "))
    return "\n".join(lines)


@app.command()
def approvals(
    session: Annotated[
        str | None, typer.Option(help="Only this session.", callback=check_session_key)
    ] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Include decided ones.")] = False,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the records (with previews) as JSON.")
    ] = False,
) -> None:
    """List pending approvals: id, session, tool, reasons, expiry and what would run."""
    application = load_application()
    try:
        records = application.approvals.list(session)
        refused = application.approvals.refused(session)
    finally:
        application.close()
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


def _decide(approval_id: str, decision: str, session: str | None, reason: str | None) -> None:
    application = load_application()
    print_stops_once()
    try:
        record = application.approvals.load(approval_id)
        verb = "Approving" if decision == "approve" else "Rejecting"
        typer.echo(f"{verb}:\n{_describe(record)}")
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
) -> None:
    """Approve APPROVAL_ID: show what will run, run the frozen call and continue the run."""
    _decide(approval_id, "approve", session, None)


@app.command()
def reject(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    reason: Annotated[str | None, typer.Argument(help="Why (the model reads it).")] = None,
    session: SessionOption = None,
) -> None:
    """Reject APPROVAL_ID: the call is not executed and the model is told why."""
    _decide(approval_id, "reject", session, reason)
