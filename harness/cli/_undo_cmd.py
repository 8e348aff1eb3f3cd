"""``harness undo``: list the changes harness applied to the workdir, and put them back."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli._application import configure_logging
from harness.cli._root import app
from harness.cli._terminal import terminal_safe

if TYPE_CHECKING:
    from harness.effects import JournalEntry, JournalFile, JournalStore

__all__ = ["undo"]

_UNDO_HELP = """List the changes harness applied to the workdir, or undo them.

Every change a bash call, write or edit applied is journaled in the state dir
first: the prior bytes, mode and symlink target of each file it overwrote,
deleted or renamed. Undo puts them back and removes the files the call made.

\b
  harness undo                        list runs and their applied calls
  harness undo --run last             list the calls of the latest run
  harness undo CALL                   undo one call (CALL: its id, or a unique prefix)
  harness undo --run RUN --to CALL    undo every change of RUN after CALL (CALL stays)
  harness undo --run RUN --all        undo every change of RUN
  harness undo --prune DAYS           forget changes applied more than DAYS ago
  add --dry-run to see what would change, --json for machine-readable output

An undo is refused, naming the file, when a later change (another call, or
anything outside harness) touched a file since: nothing is changed then.
Exit codes: 0 done (or listed), 1 refused, 2 bad usage.
"""


@app.command(help=_UNDO_HELP)
def undo(
    call: Annotated[
        str | None, typer.Argument(help="The call to undo (id or unique prefix).")
    ] = None,
    run: Annotated[
        str | None, typer.Option("--run", help="The run (id, unique prefix, or 'last').")
    ] = None,
    to: Annotated[
        str | None,
        typer.Option("--to", help="Undo the run's changes after this call (it stays applied)."),
    ] = None,
    undo_all: Annotated[bool, typer.Option("--all", help="Undo every change of --run.")] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would change; change nothing.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    prune: Annotated[
        int | None,
        typer.Option(
            "--prune",
            min=0,
            help="Forget changes applied more than DAYS ago, and the prior content only "
            "they kept (they can no longer be undone).",
            metavar="DAYS",
        ),
    ] = None,
) -> None:
    from harness.cli._errors import fail
    from harness.effects import JournalStore
    from harness.settings import Settings

    settings = Settings.from_env()
    configure_logging(settings.log_level)
    store = JournalStore(settings.resolved_state_dir)
    chosen = sum((call is not None, to is not None, undo_all, prune is not None))
    if chosen > 1:
        fail("give one of CALL, --to CALL, --all or --prune, not several")
    if prune is not None:
        _prune(store, prune)
        return
    if (to is not None or undo_all) and run is None:
        fail("--to and --all need --run RUN (see the runs with `harness undo`)")
    run_id = _find_run(store, run) if run is not None else None
    if not chosen:
        _list(store, run_id, as_json)
        return
    from harness.effects import later_entries, undo_entries

    if call is not None:
        entries = _call_entries(store, call, run_id)
    else:
        assert run_id is not None
        after = _find_call(store, run_id, to) if to is not None else None
        entries = later_entries(store, run_id, after)
        if not entries:
            typer.echo(f"nothing to undo: run {run_id} has no applied change after that")
            return
    workdir = str(settings.workdir.resolve())
    for entry in entries:
        if entry.workdir != workdir:
            fail(
                f"call {entry.call} changed {entry.workdir}, not this workdir ({workdir}); "
                f"run it with HARNESS_WORKDIR={entry.workdir}"
            )
    report = undo_entries(store, entries, dry_run=dry_run)
    if as_json:
        typer.echo(
            json.dumps(
                {
                    "dry_run": dry_run,
                    "calls": [e.call for e in report.entries],
                    "restored": report.restored,
                    "removed": report.removed,
                    "notes": report.notes,
                },
                indent=2,
            )
        )
        return
    verb = "would undo" if dry_run else "undid"
    calls = ", ".join(f"{e.call} ({e.tool})" for e in report.entries)
    typer.echo(
        terminal_safe(f"{verb} {len(report.entries)} call(s) of run {entries[0].run}: {calls}")
    )
    from harness.effects import shown_path

    for path in report.restored:
        typer.echo(terminal_safe(f"  restored {shown_path(path)}"))
    for path in report.removed:
        typer.echo(terminal_safe(f"  removed  {shown_path(path)}"))
    for note in report.notes:
        typer.echo(terminal_safe(f"  note: {note}"))


def _prune(store: JournalStore, days: int) -> None:
    from datetime import UTC, datetime, timedelta

    cutoff = datetime.now(UTC) - timedelta(days=days)
    entries, blobs, freed = store.prune(cutoff)
    typer.echo(
        f"forgot {entries} applied change(s) older than {days} day(s) and {blobs} kept "
        f"file(s) no other change needs ({freed / 1e6:.1f} MB freed)"
    )


def _find_run(store: JournalStore, wanted: str) -> str:
    from harness.cli._errors import fail

    runs = store.runs()
    if not runs:
        fail(f"no applied changes are journaled in {store.root}")
    if wanted == "last":
        return runs[-1]
    if wanted in runs:
        return wanted
    matches = [r for r in runs if r.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    what = "matches several runs" if matches else "is no run with applied changes"
    fail(f"--run {wanted!r} {what}; see the runs with `harness undo`")


def _find_call(store: JournalStore, run: str, wanted: str) -> str:
    from harness.cli._errors import fail

    calls = list(dict.fromkeys(e.call for e in store.entries(run)))
    if wanted in calls:
        return wanted
    matches = [c for c in calls if c.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    what = "matches several calls" if matches else "is no call with applied changes"
    fail(f"{wanted!r} {what} of run {run}; see them with `harness undo --run {run}`")


def _call_entries(store: JournalStore, wanted: str, run: str | None) -> list[JournalEntry]:
    from harness.cli._errors import fail

    runs = [run] if run is not None else store.runs()
    found: dict[str, list[JournalEntry]] = {}
    for each in runs:
        call = _prefix_call(store, each, wanted)
        if call is not None:
            found[each] = [e for e in store.entries(each) if e.call == call and not e.undone]
            if not found[each]:
                fail(f"call {call} of run {each} was undone already")
    if not found:
        fail(f"no applied change from call {wanted!r}; see the calls with `harness undo`")
    if len(found) > 1:
        fail(f"call {wanted!r} is in several runs ({', '.join(found)}); add --run RUN")
    return next(iter(found.values()))


def _prefix_call(store: JournalStore, run: str, wanted: str) -> str | None:
    calls = list(dict.fromkeys(e.call for e in store.entries(run)))
    if wanted in calls:
        return wanted
    matches = [c for c in calls if c.startswith(wanted)]
    if len(matches) > 1:
        from harness.cli._errors import fail

        fail(f"{wanted!r} matches several calls of run {run}; give more of the id")
    return matches[0] if matches else None


def _list(store: JournalStore, run: str | None, as_json: bool) -> None:
    runs = [run] if run is not None else store.runs()
    older = max(0, len(runs) - _LISTED_RUNS)
    runs = runs[older:]
    if as_json:
        typer.echo(
            json.dumps(
                {r: [e.model_dump(mode="json") for e in store.entries(r)] for r in runs}, indent=2
            )
        )
        return
    if not runs:
        typer.echo(f"no applied changes are journaled (in {store.root})")
        return
    for each in runs:
        entries = store.entries(each)
        workdir = entries[0].workdir if entries else "?"
        typer.echo(terminal_safe(f"run {each}  ({len(entries)} applied call(s), {workdir})"))
        for entry in entries:
            when = entry.applied_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")
            state = "  [undone]" if entry.undone else ""
            typer.echo(
                terminal_safe(f"  {when}  {entry.tool:5s}  {entry.call}{state}  {_paths(entry)}")
            )
            if entry.note:
                typer.echo(terminal_safe(f"      note: {entry.note}"))
    if older:
        typer.echo(f"({older} older run(s) not shown: harness undo --run RUN lists one)")


_LISTED_RUNS = 20


def _paths(entry: JournalEntry) -> str:
    shown = [_one(f) for f in entry.files[:4]]
    more = len(entry.files) - len(shown)
    return "; ".join(shown) + (f"; and {more} more" if more > 0 else "")


def _one(item: JournalFile) -> str:
    from harness.effects import shown_path

    if item.before is None:
        what = "created"
    elif item.after is None:
        what = "deleted"
    elif item.before.kind != item.after.kind or item.before.sha256 != item.after.sha256:
        what = "modified"
    else:
        what = "mode"
    return f"{what} {shown_path(item.path)}" + ("" if item.kept else " (not kept)")
