"""Applying a changeset from its layer onto the real workdir: all of it or none.

Before anything moves, every touched path of the real workdir must still be
what it was when the call ran (kind, mode, hash); every new content in the
layer must hash to what the changeset (signed in the approval record) says,
checked as it is copied (a mismatch puts every path back). New content is
staged beside its target (same folder, same file system), and the changes are
committed path by path; the old entries are renamed aside, not deleted, until
the last change is in, so a failure part way puts every earlier path back. A
crash in that short window can leave a ``.harness-old-*`` entry next to its
path; nothing is lost.

Before the first path moves, the undo journal (``journal``) keeps the prior
bytes of every file the change overwrites or deletes, so ``harness undo`` can
put them back. Files are copied keeping holes (a sparse file is not expanded)
and hashed while copied, so content swapped in the layer after the check is
refused. A FIFO, socket or device the call made is not applied (nothing to
copy); the summary line says so.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
import stat
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import ToolError
from harness.effects._changeset import Changeset, FileState, special_skipped
from harness.effects._files import file_state
from harness.effects._journal import JournalEntry, UndoJournal, journal_for_layer
from harness.effects._journal_budget import copy_sparse

__all__ = ["ChangedMeanwhile", "apply_changeset", "stale_paths"]


class ChangedMeanwhile(ToolError):
    """A touched path no longer holds what it held when the call ran; nothing applied."""

    def __init__(self, message: str) -> None:
        super().__init__(message, error_type="changed_meanwhile")


def stale_paths(changeset: Changeset, workdir: Path, layer: Path | None = None) -> list[str]:
    """Touched paths whose workdir content (or layer content) is not what the changeset says."""
    stale = [c.path for c in changeset.changes if not _same(file_state(workdir / c.path), c.before)]
    if layer is not None:
        for change in changeset.changes:
            after = change.after
            kept = after is None or after.kind == "dir"
            if not kept and not _same(file_state(layer / change.path), after):
                stale.append(f"{change.path} (in the held layer)")
    return stale


def apply_changeset(
    changeset: Changeset, workdir: Path, layer: Path, *, journal: UndoJournal | None = None
) -> None:
    """Make the workdir match the layer at every path of ``changeset``.

    Args:
        journal: records the change first; by default the one named in the
            layer's ``origin.json`` (written by the bash tool), if any.

    Raises:
        ChangedMeanwhile: a path changed since the call ran, or the layer was
            altered; nothing was applied.
        ToolError: the file system refused a step; every earlier step was undone.
    """
    root = workdir.resolve()
    # The layer's side is checked as it is copied (``_copy_checked``): one read of
    # each new file, not two (a sparse gigabyte costs seconds to hash).
    stale = stale_paths(changeset, root)
    if stale:
        raise ChangedMeanwhile(
            "nothing was applied: these paths changed since the call ran: "
            + ", ".join(stale[:10])
            + (f" and {len(stale) - 10} more" if len(stale) > 10 else "")
            + ". Run the command again on the current files."
        )
    for change in changeset.changes:
        _check_inside(root, change.path)
    recorder = journal if journal is not None else journal_for_layer(layer)
    entry: JournalEntry | None = None
    if recorder is not None:
        entry = recorder.record(changeset, root)
    rollback = _Rollback()
    try:
        removals = [c for c in changeset.changes if c.before is not None]
        for change in sorted(removals, key=lambda c: -c.path.count("/")):
            if (
                change.before is not None
                and change.before.kind == "dir"
                and change.after
                and change.after.kind == "dir"
            ):
                continue  # a folder that stays a folder: only its mode may change
            rollback.move_aside(root / change.path)
        for change in sorted(changeset.changes, key=lambda c: c.path.count("/")):
            if change.after is not None and not special_skipped(change):
                rollback.put(root / change.path, layer / change.path, change.after)
    except BaseException as exc:
        rollback.undo()
        if entry is not None and recorder is not None:
            recorder.forget(entry)
        if not isinstance(exc, OSError):
            raise
        raise ToolError(
            f"applying the changes failed at {exc.filename or '?'} ({exc.strerror or exc}); "
            "every change already made was undone",
            error_type="apply_failed",
        ) from exc
    rollback.commit()


def _same(now: FileState | None, then: FileState | None) -> bool:
    if now is None or then is None:
        return now is None and then is None
    if now.kind != then.kind:
        return False
    if now.kind == "dir":
        return True  # its entries are checked one by one; a mode change is harmless here
    return now.sha256 == then.sha256 and now.mode == then.mode


def _check_inside(root: Path, rel: str) -> None:
    parent = os.path.realpath((root / rel).parent)
    if not Path(parent).is_relative_to(root):
        raise ChangedMeanwhile(
            f"nothing was applied: {rel!r} would be written through a symlink that leads "
            "out of the workdir"
        )


@dataclass
class _Rollback:
    aside: list[tuple[Path, Path]] = field(default_factory=list)
    placed: list[Path] = field(default_factory=list)
    modes: list[tuple[Path, int]] = field(default_factory=list)

    def move_aside(self, path: Path) -> None:
        backup = path.with_name(f".harness-old-{secrets.token_hex(4)}-{path.name}"[:255])
        os.rename(path, backup)
        self.aside.append((path, backup))

    def put(self, target: Path, source: Path, state: FileState) -> None:
        if state.kind == "dir":
            if target.is_dir() and not target.is_symlink():
                self.modes.append((target, os.lstat(target).st_mode & 0o7777))
                os.chmod(target, state.mode)
                return
            os.mkdir(target, state.mode)
            os.chmod(target, state.mode)  # the umask does not narrow it
            self.placed.append(target)
            return
        staged = target.with_name(f".harness-new-{secrets.token_hex(4)}-{target.name}"[:255])
        if state.kind == "symlink":
            os.symlink(state.target or "", staged)
        else:
            _copy_checked(source, staged, state)
        try:
            os.rename(staged, target)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(staged)
            raise
        self.placed.append(target)

    def undo(self) -> None:
        """Put every path back as it was (each step best effort)."""
        for path in reversed(self.placed):
            with contextlib.suppress(OSError):
                if path.is_dir() and not path.is_symlink():
                    os.rmdir(path)
                else:
                    os.unlink(path)
        for path, mode in self.modes:
            with contextlib.suppress(OSError):
                os.chmod(path, mode)
        for path, backup in reversed(self.aside):
            with contextlib.suppress(OSError):
                os.rename(backup, path)

    def commit(self) -> None:
        for _, backup in self.aside:
            with contextlib.suppress(OSError):
                if backup.is_dir() and not backup.is_symlink():
                    shutil.rmtree(backup)
                else:
                    os.unlink(backup)


def _copy_checked(source: Path, staged: Path, state: FileState) -> None:
    """Copy the layer's file to ``staged`` keeping holes; its bytes must hash as ``state``."""
    src = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):
            raise ChangedMeanwhile(
                f"nothing was applied: {source.name!r} in the held layer is no longer a file"
            )
        dst = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            digest = copy_sparse(src, dst)
            os.fchmod(dst, state.mode)
        except BaseException:  # e.g. the disk is full: no staged file is left behind
            os.close(dst)
            with contextlib.suppress(OSError):
                os.unlink(staged)
            raise
        os.close(dst)
    finally:
        os.close(src)
    if digest != state.sha256:
        with contextlib.suppress(OSError):
            os.unlink(staged)
        raise ChangedMeanwhile(
            f"nothing was applied: {source.name!r} in the held layer changed after it was "
            "judged; run the command again"
        )
