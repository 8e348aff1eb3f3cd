"""``harness view``: write the HTML page for trace files, eval reports, or two
reports compared (glue over ``harness.view``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli._errors import fail
from harness.cli._gc_pause import collector_paused
from harness.cli._root import app

__all__ = ["default_output", "expand_inputs", "view"]


def expand_inputs(paths: list[Path]) -> list[Path]:
    """Files as given; a folder stands for the trace files under it, newest first
    (the ``*.json`` files in ``traces/`` folders, e.g. of a whole state directory;
    else every ``*.json`` file in it)."""
    files: list[Path] = []
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        found = sorted(path.rglob("*.json"))
        traces = [file for file in found if file.parent.name == "traces"] or found
        if not traces:
            fail(f"{path} is a folder with no .json trace files in it")
        files.extend(sorted(traces, key=lambda file: file.stat().st_mtime_ns, reverse=True))
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
        list[Path] | None,
        typer.Argument(
            metavar="PATH",
            help="Trace files, folders of them (e.g. a traces/ folder), or eval reports.",
        ),
    ] = None,
    compare: Annotated[
        tuple[Path, Path] | None,
        typer.Option(
            "--compare",
            metavar="OLD NEW",
            help="Compare two eval reports (as `harness eval compare` judges them).",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The HTML file to write (default: next to the input)."),
    ] = None,
    open_page: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
    cassettes: Annotated[
        list[Path] | None,
        typer.Option(
            "--cassettes",
            metavar="DIR",
            help="Where the reports' cassettes are, for the runs' transcripts when a row's own "
            "recorded path is gone (repeatable; default: the cassettes/ folders of the report's "
            "project and the working directory).",
        ),
    ] = None,
) -> None:
    """Write one self-contained HTML page (no network needed) for PATHS and print its path.

    \b
    harness view TRACE... | FOLDER...     the trace page
    harness view REPORT.json [TRACE...]   the eval-report page, the runs' traces inside
    harness view REPORTS_DIR              the index: runs newest first, cases x runs
    harness view --compare OLD.json NEW.json
                                          regressions first, as `harness eval compare`
    """
    from harness.core.errors import HarnessError
    from harness.view import report_files, write_compare_page, write_index_page, write_view_page

    for folder in cassettes or ():
        if not folder.is_dir():
            fail(f"--cassettes {folder} is not a folder; give the folder the cassettes are in")
    try:
        with collector_paused():  # a big report's page: an acyclic heap
            if compare is not None:
                if paths:
                    fail("give either PATH... or --compare OLD NEW, not both")
                old, new = compare
                target = (output or new.with_name(f"{old.stem}-vs-{new.stem}.html")).resolve()
                written = write_compare_page(old, new, target, cassettes=cassettes or ())
            else:
                if not paths:
                    fail("give trace files, folders or eval reports to show, or --compare OLD NEW")
                target = (output or default_output(paths)).resolve()
                if len(paths) == 1 and paths[0].is_dir() and report_files(paths[0]):
                    written = write_index_page(paths[0], target)
                else:
                    written = write_view_page(expand_inputs(paths), target, cassettes or ())
    except HarnessError as exc:
        fail(str(exc))
    typer.echo(str(written))
    if open_page:
        import webbrowser

        webbrowser.open(written.as_uri())
