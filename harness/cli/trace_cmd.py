"""``harness trace``: look at recorded traces."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["trace_app"]

trace_app = typer.Typer(
    help="Show recorded run traces.", no_args_is_help=True, rich_markup_mode=None
)


@trace_app.command("show")
def show(
    path: Annotated[Path, typer.Argument(help="A trace JSON file (see RunResult.trace_path).")],
    outline: Annotated[bool, typer.Option(help="Only the normalised outline.")] = False,
) -> None:
    """Render a trace as an indented decision tree."""
    from harness.cli.main import fail
    from harness.core.errors import HarnessError
    from harness.testing.trace_assertions import load_trace, normalize_trace, render_trace

    try:
        tree = load_trace(path)
    except HarnessError as exc:
        fail(str(exc))
    typer.echo(normalize_trace(tree) if outline else render_trace(tree))
