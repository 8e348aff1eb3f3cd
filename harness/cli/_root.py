"""The root ``harness`` typer app: its help, its ``--version`` option.

Every sub-command module registers its commands on ``app``; ``main`` imports
them all, so this module must import none of them.
"""

from __future__ import annotations

from typing import Annotated

import typer

from harness.cli._errors import HarnessGroup

__all__ = ["app"]

_APP_HELP = """Run, trace, approve and evaluate LLM agents; replay them offline.

\b
Errors print one `error:` line on stderr (HARNESS_DEBUG=1 shows the traceback).
Exit codes: 0 success, 1 failure, 2 bad usage or settings,
3 run paused for approval, 4 step limit reached, 130 interrupted.
"""

app = typer.Typer(
    name="harness",
    cls=HarnessGroup,
    help=_APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: rich formatting costs ~300 ms of imports on every call.
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:
    if value:
        from harness.version import __version__

        typer.echo(f"harness {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Options of the harness command itself (see _APP_HELP)."""
