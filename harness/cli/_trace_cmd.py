"""``harness trace``: list and show recorded traces (glue over ``harness.tracing``)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli._terminal import terminal_safe

if TYPE_CHECKING:
    from harness.tracing import TraceCatalog, TraceSummary

__all__ = ["trace_app"]

trace_app = typer.Typer(
    help="List and show recorded run traces.", no_args_is_help=True, rich_markup_mode=None
)

_COLUMNS = ("TRACE", "SESSION", "STARTED", "DURATION", "STOP", "STEPS")


def _state_dir() -> Path:
    from harness.cli._errors import fail
    from harness.core.errors import HarnessError
    from harness.settings import Settings

    try:
        return Settings.from_env().resolved_state_dir
    except HarnessError as exc:
        fail(str(exc))


def _catalog(session: str | None, limit: int | None) -> TraceCatalog:
    from harness.cli._errors import fail
    from harness.core.errors import HarnessError
    from harness.tracing import list_traces

    try:
        return list_traces(_state_dir(), session=session, limit=limit)
    except HarnessError as exc:
        fail(str(exc))


@trace_app.command("list")
def list_command(
    session: Annotated[str | None, typer.Option(help="Only this session's traces.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most N traces (newest).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List recorded traces, newest first (HARNESS_STATE_DIR/sessions/*/traces)."""
    catalog = _catalog(session, limit)
    if catalog.unreadable:
        details = "; ".join(f"{u.path} ({u.reason})" for u in catalog.unreadable)
        count = len(catalog.unreadable)
        typer.echo(
            f"warning: {count} trace file{'s' if count != 1 else ''} unreadable, "
            f"listed as 'unreadable': {details}",
            err=True,
        )
    if as_json:
        typer.echo(catalog.model_dump_json(indent=2))
        return
    if not catalog.traces and not catalog.unreadable:
        where = f"session {session!r}" if session else "any session"
        typer.echo(f"no traces for {where} under {_state_dir() / 'sessions'}", err=True)
        return
    rows = [_row(summary) for summary in catalog.traces]
    rows += [("unreadable", "-", "-", "-", "-", str(u.path)) for u in catalog.unreadable]
    widths = [max(len(row[i]) for row in [_COLUMNS, *rows]) for i in range(len(_COLUMNS))]
    for row in [_COLUMNS, *rows]:
        typer.echo(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def _row(summary: TraceSummary) -> tuple[str, ...]:
    return (
        summary.trace_id,
        summary.session_key or "-",
        summary.started_at.replace("T", " ")[:19] + "Z" if summary.started_at else "-",
        _duration(summary.duration_ms),
        summary.stop_reason or "-",
        "-" if summary.steps is None else str(summary.steps),
    )


def _duration(ms: float | None) -> str:
    if ms is None:
        return "-"
    return f"{ms:.1f}ms" if ms < 1000 else f"{ms / 1000:.2f}s"


@trace_app.command("show")
def show(
    path: Annotated[
        Path | None,
        typer.Argument(help="A trace JSON file (see RunResult.trace_path); or use --last."),
    ] = None,
    last: Annotated[bool, typer.Option("--last", help="The newest recorded trace.")] = False,
    session: Annotated[
        str | None, typer.Option(help="With --last: the newest trace of this session.")
    ] = None,
    content: Annotated[
        bool, typer.Option("--content", help="Show stored payloads (replay-mode traces).")
    ] = False,
    width: Annotated[
        int | None,
        typer.Option(min=0, help="Wrap to N columns (default: the terminal; 0: no wrapping)."),
    ] = None,
    outline: Annotated[bool, typer.Option(help="Only the normalised outline.")] = False,
) -> None:
    """Render a trace as an indented tree with status, duration and attributes."""
    from harness.cli._errors import fail
    from harness.core.errors import HarnessError
    from harness.tracing import TraceTree, content_note, outline_text, render_trace

    if path is None and not last:
        fail(
            "say which trace to show: give a trace file (RunResult.trace_path; "
            "`harness trace list` shows them) or --last for the newest"
        )
    if path is not None and last:
        fail("give either a trace file or --last, not both")
    if session is not None and not last:
        fail("--session selects a trace only with --last")
    if path is None:
        catalog = _catalog(session, 1)
        if not catalog.traces:
            where = f" of session {session!r}" if session else ""
            fail(f"no readable trace{where} under {_state_dir() / 'sessions'}")
        path = catalog.traces[0].path
    try:
        tree = TraceTree.load(path)
    except HarnessError as exc:
        fail(str(exc))
    if outline:
        typer.echo(terminal_safe(outline_text(tree.root)))
        return
    columns = shutil.get_terminal_size().columns if width is None else width
    typer.echo(terminal_safe(render_trace(tree, width=columns or None, content=content)))
    note = content_note(tree) if content else None
    if note is not None:
        typer.echo(note)
