"""``harness approvals | approve | reject``: decide paused runs from the shell."""

from __future__ import annotations

from typing import Annotated

import typer

from harness.cli.main import app, fail, load_application

__all__ = ["approvals", "approve", "reject"]

SessionOption = Annotated[
    str | None,
    typer.Option(help="Session the approval must belong to (default: the approval's own)."),
]


@app.command()
def approvals(
    session: Annotated[str | None, typer.Option(help="Only this session.")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Include decided ones.")] = False,
) -> None:
    """List pending approvals (id, session, tool, reasons, expiry)."""
    application = load_application()
    records = application.approvals.list(session)
    application.close()
    shown = [r for r in records if show_all or r.status.value == "pending"]
    if not shown:
        typer.echo("no pending approvals" if not show_all else "no approvals")
        return
    for record in shown:
        typer.echo(
            f"{record.approval_id}  {record.status.value:8s}  session={record.session_key}  "
            f"tool={record.tool_name}  expires={record.expires_at.isoformat(timespec='seconds')}"
        )
        typer.echo(f"    reasons: {'; '.join(record.risk_reasons)}")


def _decide(approval_id: str, decision: str, session: str | None, reason: str | None) -> None:
    from harness.core.errors import HarnessError

    application = load_application()
    try:
        key = session or application.approvals.load(approval_id).session_key
        result = application.resume_approval(approval_id, decision, session=key, reason=reason)
    except HarnessError as exc:
        fail(str(exc), code=1)
    finally:
        application.close()
    typer.echo(result.text)
    typer.echo(f"[stop_reason: {result.stop_reason.value}, steps: {result.steps}]")
    if result.approval_id:
        typer.echo(f"[approval required: harness approve {result.approval_id}]")


@app.command()
def approve(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    session: SessionOption = None,
) -> None:
    """Approve APPROVAL_ID: run the frozen tool call and continue the run."""
    _decide(approval_id, "approve", session, None)


@app.command()
def reject(
    approval_id: Annotated[str, typer.Argument(help="The approval id.")],
    reason: Annotated[str | None, typer.Argument(help="Why (the model reads it).")] = None,
    session: SessionOption = None,
) -> None:
    """Reject APPROVAL_ID: the call is not executed and the model is told why."""
    _decide(approval_id, "reject", session, reason)
