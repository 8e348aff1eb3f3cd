"""Undoing journaled changes: one call, or a run back to a point, newest first.

Everything is checked before anything moves. For every path of every entry
undone, newest first, what is there now (or what undoing a newer selected
entry will leave there) must be what the entry's call left: same kind, same
bytes (the post-image digest). Otherwise a later change touched the file and
the undo is refused, naming the file and, when the journal knows it, the
call that changed it. A file whose prior bytes were not kept (over the undo
budget, a FIFO) refuses the undo too.

Restoring writes nothing through a symlink: every folder on the way is opened
with ``O_NOFOLLOW`` from the workdir down, a file is put back as a temp file
in its folder plus a rename (its bytes hashed against the journal as they are
copied), a symlink as a new link plus a rename. Created paths are removed
deepest first, prior ones restored shallowest first. An entry undone is
marked so (it is listed, never undone twice).
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from harness.core.errors import HarnessError
from harness.effects._changeset import FileState, shown_path
from harness.effects._journal import (
    JournalEntry,
    JournalFile,
    JournalStore,
    open_dir_nofollow,
    state_at,
)
from harness.effects._journal_budget import copy_sparse, kept_bytes

__all__ = ["UndoRefused", "UndoReport", "later_entries", "undo_entries"]

_MISSING_PARENT = FileState(kind="special", mode=0)
"""What a path is when a folder on its way is a symlink or not a folder."""


class UndoRefused(HarnessError):
    """The undo would overwrite a later change, or cannot restore a file; nothing was undone."""


@dataclass
class UndoReport:
    """What an undo did (or, with ``dry_run``, would do)."""

    entries: list[JournalEntry] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def later_entries(store: JournalStore, run: str, after_call: str | None) -> list[JournalEntry]:
    """The run's entries not yet undone after the last one of ``after_call`` (None: all)."""
    entries = store.entries(run)
    start = 0
    if after_call is not None:
        marks = [i for i, entry in enumerate(entries) if entry.call == after_call]
        if not marks:
            raise UndoRefused(
                f"run {run!r} has no applied change from call {after_call!r}; "
                "see `harness undo --list --run RUN`"
            )
        start = marks[-1] + 1
    return [entry for entry in entries[start:] if not entry.undone]


def undo_entries(
    store: JournalStore, entries: Sequence[JournalEntry], *, dry_run: bool = False
) -> UndoReport:
    """Undo ``entries`` (any order given; undone newest first), all checked first.

    Raises:
        UndoRefused: a later change touched a file, a prior content was not
            kept, or an entry was undone already; nothing was changed.
    """
    chosen = sorted(entries, key=lambda e: e.entry_id, reverse=True)
    _check(store, chosen)
    report = UndoReport(entries=chosen)
    if dry_run:
        for entry in chosen:
            for item in entry.files:
                (report.restored if item.before is not None else report.removed).append(item.path)
        return report
    for entry in chosen:
        workdir = Path(entry.workdir)
        try:
            _undo_one(store, entry, workdir, report)
        except OSError as exc:
            done = [e.call for e in report.entries if e.undone_at is not None]
            raise UndoRefused(
                f"undoing call {entry.call!r} stopped at {exc.filename or '?'} "
                f"({exc.strerror or exc}); calls already undone: {', '.join(done) or 'none'}"
            ) from exc
        undone = entry.model_copy(update={"undone_at": datetime.now(UTC)})
        store.save(undone)
        report.entries[report.entries.index(entry)] = undone
    return report


def _check(store: JournalStore, chosen: Sequence[JournalEntry]) -> None:
    expected: dict[tuple[str, str], FileState | None] = {}
    selected = {entry.entry_id for entry in chosen}
    for entry in chosen:
        if entry.undone:
            raise UndoRefused(f"call {entry.call!r} of run {entry.run!r} was undone already")
        workdir = Path(entry.workdir)
        for item in entry.files:
            key = (entry.workdir, item.path)
            now = expected[key] if key in expected else current_state(workdir, item.path)
            if not same_content(now, item.after):
                raise UndoRefused(
                    f"{shown_path(item.path)} was changed after call {entry.call!r} of run "
                    f"{entry.run!r} ({_changed_by(store, entry, item.path, selected)}); "
                    "nothing was undone. Undo that change first, or put the file back as the "
                    "call left it"
                )
            if not item.kept or not _restorable(store, item):
                raise UndoRefused(
                    f"{shown_path(item.path)}: its content before call {entry.call!r} was not kept "
                    f"({entry.note or 'a FIFO, socket or device has none'}), so it cannot be "
                    "restored; nothing was undone"
                )
            expected[key] = item.before


def same_content(now: FileState | None, then: FileState | None) -> bool:
    """Same kind and bytes (a folder is the same folder whatever its entries)."""
    if now is None or then is None:
        return now is None and then is None
    if now.kind != then.kind:
        return False
    return now.kind == "dir" or now.sha256 == then.sha256


def current_state(workdir: Path, rel: str) -> FileState | None:
    """What is at ``rel`` now, reached without following any symlink on the way."""
    *parents, name = rel.split("/")
    try:
        dir_fd = open_dir_nofollow(workdir, parents)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR and not os.path.lexists(workdir / rel):
            return None
        return _MISSING_PARENT
    try:
        return state_at(dir_fd, name)
    finally:
        os.close(dir_fd)


def _changed_by(store: JournalStore, entry: JournalEntry, path: str, selected: set[str]) -> str:
    for run in reversed(store.runs()):
        for later in reversed(store.entries(run)):
            if later.entry_id <= entry.entry_id or later.undone or later.entry_id in selected:
                continue
            if later.workdir == entry.workdir and any(f.path == path for f in later.files):
                return f"by call {later.call!r} of run {later.run!r}"
    return "outside harness, or by a change the journal does not hold"


def _restorable(store: JournalStore, item: JournalFile) -> bool:
    before = item.before
    if before is None or before.kind != "file" or not kept_bytes(before, item.after):
        return before is None or before.kind != "special"
    if item.moved_to is not None:
        return True  # taken back from where the call moved it (checked there)
    return before.sha256 is not None and store.blob(before.sha256).is_file()


def _undo_one(store: JournalStore, entry: JournalEntry, workdir: Path, report: UndoReport) -> None:
    depth = _depth_order(entry.files)
    for item in entry.files:  # a renamed file's bytes: kept now, before its new name goes
        if item.moved_to is not None and item.before is not None:
            _keep_moved(store, workdir, item.moved_to, item.before)
    for item in reversed(depth):  # deepest first: take away what the call made
        before, after = item.before, item.after
        if after is None or (before is not None and _kind(before) == _kind(after)):
            continue
        if _remove(workdir, item.path, after):
            report.removed.append(item.path)
        else:
            report.notes.append(f"left folder {item.path}: it holds files made since")
    for item in depth:  # shallowest first: put back what was there
        if item.before is not None:
            _restore(store, workdir, item)
            report.restored.append(item.path)


def _keep_moved(store: JournalStore, workdir: Path, moved_to: str, before: FileState) -> None:
    if not before.size or not before.sha256 or store.blob(before.sha256).is_file():
        return
    *parents, name = moved_to.split("/")
    dir_fd = open_dir_nofollow(workdir, parents)
    try:
        store.keep(dir_fd, name, before.sha256)
    except ValueError as exc:
        raise OSError(errno.EIO, str(exc), moved_to) from exc
    finally:
        os.close(dir_fd)


def _depth_order(files: Iterable[JournalFile]) -> list[JournalFile]:
    return sorted(files, key=lambda f: (f.path.count("/"), f.path))


def _kind(state: FileState) -> str:
    return state.kind


def _remove(workdir: Path, rel: str, state: FileState) -> bool:
    *parents, name = rel.split("/")
    try:
        dir_fd = open_dir_nofollow(workdir, parents)
    except FileNotFoundError:
        return True
    try:
        if state.kind == "dir":
            try:
                os.rmdir(name, dir_fd=dir_fd)
            except FileNotFoundError:
                pass
            except OSError as exc:
                if exc.errno in (errno.ENOTEMPTY, errno.EEXIST):
                    return False
                raise
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=dir_fd)
    finally:
        os.close(dir_fd)
    return True


def _restore(store: JournalStore, workdir: Path, item: JournalFile) -> None:
    before = item.before
    assert before is not None
    *parents, name = item.path.split("/")
    dir_fd = _open_parents(workdir, parents)
    try:
        if before.kind == "dir":
            _restore_dir(dir_fd, name, before.mode)
            return
        if before.kind == "file" and before.size and not kept_bytes(before, item.after):
            _chmod_file(dir_fd, name, before.mode)  # a mode change: the bytes are the prior ones
            return
        tmp = f".harness-undo-{secrets.token_hex(4)}-{name}"[:255]
        if before.kind == "symlink":
            os.symlink(before.target or "", tmp, dir_fd=dir_fd)
        else:
            _write_file(store, dir_fd, tmp, before)
        try:
            if _is_dir_at(dir_fd, name):
                os.rmdir(name, dir_fd=dir_fd)  # made by the call, emptied above
            os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)


def _write_file(store: JournalStore, dir_fd: int, tmp: str, before: FileState) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    out = os.open(tmp, flags, 0o600, dir_fd=dir_fd)
    try:
        if before.size:
            src = os.open(store.blob(before.sha256 or ""), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                digest = copy_sparse(src, out)
            finally:
                os.close(src)
            if digest != before.sha256:
                raise OSError(errno.EIO, "the kept content does not match its digest", tmp)
        os.fchmod(out, before.mode)
    except BaseException:
        os.close(out)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.close(out)


def _chmod_file(dir_fd: int, name: str, mode: int) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _restore_dir(dir_fd: int, name: str, mode: int) -> None:
    with contextlib.suppress(FileExistsError):
        os.mkdir(name, mode, dir_fd=dir_fd)
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=dir_fd)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


def _is_dir_at(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISDIR(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def _open_parents(workdir: Path, parents: list[str]) -> int:
    """The folder of a path to restore; missing folders on the way are made (0755)."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(workdir, flags)
    try:
        for part in parents:
            try:
                child = os.open(part, flags, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(part, 0o755, dir_fd=fd)
                child = os.open(part, flags, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd
