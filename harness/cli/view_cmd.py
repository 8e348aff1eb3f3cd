"""``harness view``: write the HTML page for trace files (glue over ``harness.view``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli.main import app, fail

__all__ = ["default_output", "expand_inputs", "view"]


def expand_inputs(paths: list[Path]) -> list[Path]:
    """Files as given; a folder stands for the ``*.json`` files under it (sorted)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(path.rglob("*.json"))
            if not found:
                fail(f"{path} is a folder with no .json trace files in it")
            files.extend(found)
        else:
            files.append(path)
    return files


def default_output(paths: list[Path]) -> Path:
    """Next to the input: ``<trace>.html`` for one file, ``harness-view.html`` in the
    first input's folder (or the folder given) for several."""
    first = paths[0]
    if len(paths) == 1 and not first.is_dir():
        return first.with_suffix(".html")
    folder = first if first.is_dir() else first.parent
    return folder / "harness-view.html"


@app.command()
def view(
    paths: Annotated[
        list[Path], typer.Argument(help="Trace files, or folders of them (e.g. a traces/ folder).")
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The HTML file to write (default: next to the input)."),
    ] = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
) -> None:
    """Write one self-contained HTML page (no network needed) for PATHS and print its path."""
    from harness.core.errors import HarnessError
    from harness.view import write_trace_page

    inputs = expand_inputs(paths)
    target = (output or default_output(paths)).resolve()
    try:
        written = write_trace_page(inputs, target)
    except HarnessError as exc:
        fail(str(exc))
    typer.echo(str(written))
    if open_page:
        import webbrowser

        webbrowser.open(written.as_uri())
