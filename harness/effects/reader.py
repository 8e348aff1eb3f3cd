"""Reading a changeset from an overlayfs upper layer, at the cost of the change.

After a bash call over an overlay, the upper dir holds exactly what the call
changed: new and copied-up files, whiteouts (character devices 0/0) for deleted
paths, and folders marked opaque (``user.overlay.opaque`` when bwrap mounts
with ``userxattr``, ``trusted.overlay.opaque`` otherwise) where a folder was
deleted and made anew. Only the upper dir is walked; the lower (the real
workdir) is looked at only at the paths the upper names, and below a folder
that was deleted, so the cost grows with the change, not with the workdir.

A file copied up without a content or mode change (``touch``, ``open(..., 'a')``
with nothing written) is no change. Directory renames reach the layer as copy
plus delete (bwrap mounts with ``redirect_dir=nofollow``); a created file whose
content equals a deleted one's is shown as a rename.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from harness.effects.changeset import Changeset, FileChange, FileState
from harness.effects.files import MAX_DIFF_BYTES, file_state, line_counts, read_bytes

__all__ = ["change_between", "deleted_tree", "read_changeset"]

_OPAQUE = ("user.overlay.opaque", "trusted.overlay.opaque")


def read_changeset(
    upper: Path, lower: Path, *, skip: Iterable[str] = (), discarded: Iterable[str] = ()
) -> Changeset:
    """The changes in ``upper`` relative to ``lower``.

    Args:
        upper: the overlay's upper dir.
        lower: the real workdir (the overlay's lower dir).
        skip: top-level relative paths never reported (the covered state dir).
        discarded: notes about writes outside the workdir, kept as they are.
    """
    changes: list[FileChange] = []
    _walk(upper, lower, "", changes, frozenset(skip))
    return Changeset(changes=_pair_renames(changes), discarded=tuple(discarded))


def change_between(
    path: str, before: FileState | None, after: FileState | None, old: Path | None, new: Path | None
) -> FileChange | None:
    """The change at ``path``; ``old``/``new`` are where the two sides' bytes can be read."""
    if before is None and after is None:
        return None
    if before is None:
        kind = "created"
    elif after is None:
        kind = "deleted"
    elif before.kind == after.kind and before.sha256 == after.sha256:
        if before.mode == after.mode:
            return None
        kind = "mode"
    else:
        kind = "modified"
    added, removed, binary = _lines(before, after, old, new)
    return FileChange(
        path=path,
        change=kind,
        before=before,
        after=after,
        added_lines=added,
        removed_lines=removed,
        binary=binary,
    )


def deleted_tree(lower: Path, rel: str, changes: list[FileChange]) -> None:
    """Add a ``deleted`` change for ``lower/rel`` and everything below it."""
    state = file_state(lower / rel)
    if state is None:
        return
    if state.kind == "dir":
        try:
            names = sorted(os.listdir(lower / rel))
        except OSError:
            names = []
        for name in names:
            deleted_tree(lower, f"{rel}/{name}", changes)
    change = change_between(rel, state, None, lower / rel, None)
    if change is not None:
        changes.append(change)


def _walk(
    upper: Path, lower: Path, rel: str, changes: list[FileChange], skip: frozenset[str]
) -> None:
    here = upper / rel if rel else upper
    with os.scandir(here) as entries:
        names = sorted(entry.name for entry in entries)
    for name in names:
        path = f"{rel}/{name}" if rel else name
        if path in skip:
            continue
        _entry(upper, lower, path, changes, skip)


def _entry(
    upper: Path, lower: Path, path: str, changes: list[FileChange], skip: frozenset[str]
) -> None:
    up = upper / path
    info = os.lstat(up)
    before = file_state(lower / path)
    if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:  # a whiteout
        deleted_tree(lower, path, changes)
        return
    after = file_state(up)
    assert after is not None
    if before is not None and before.kind == "dir" and after.kind != "dir":
        _delete_children(lower, path, changes)
    if after.kind != "dir":
        change = change_between(path, before, after, lower / path, up)
        if change is not None:
            changes.append(change)
        return
    if before is None or before.kind != "dir":
        changes.append(
            FileChange(
                path=path,
                change="created" if before is None else "modified",
                before=before,
                after=after,
            )
        )
        _walk(upper, lower, path, changes, skip)
        return
    if before.mode != after.mode:
        changes.append(FileChange(path=path, change="mode", before=before, after=after))
    if _opaque(up):
        present = set(os.listdir(up))
        for name in sorted(os.listdir(lower / path)):
            if name not in present:
                deleted_tree(lower, f"{path}/{name}", changes)
    _walk(upper, lower, path, changes, skip)


def _delete_children(lower: Path, path: str, changes: list[FileChange]) -> None:
    try:
        names = sorted(os.listdir(lower / path))
    except OSError:
        return
    for name in names:
        deleted_tree(lower, f"{path}/{name}", changes)


def _opaque(path: Path) -> bool:
    for name in _OPAQUE:
        try:
            if os.getxattr(path, name, follow_symlinks=False) == b"y":
                return True
        except OSError:
            continue
    return False


def _lines(
    before: FileState | None, after: FileState | None, old: Path | None, new: Path | None
) -> tuple[int, int, bool]:
    old_bytes = _content(before, old)
    new_bytes = _content(after, new)
    if old_bytes is _TOO_BIG or new_bytes is _TOO_BIG:
        # Too big to diff: count every byte of the old file as a removed line (fails closed).
        return 0, before.size if before is not None else 0, True
    assert not isinstance(old_bytes, _Big) and not isinstance(new_bytes, _Big)
    return line_counts(old_bytes, new_bytes)


class _Big:
    pass


_TOO_BIG = _Big()


def _content(state: FileState | None, path: Path | None) -> bytes | _Big | None:
    if state is None or state.kind != "file" or path is None:
        return None
    if state.size > MAX_DIFF_BYTES:
        return _TOO_BIG
    data = read_bytes(path)
    return _TOO_BIG if data is None else data


def _pair_renames(changes: list[FileChange]) -> tuple[FileChange, ...]:
    gone: dict[str, str] = {}
    for change in changes:
        if change.change == "deleted" and change.before and change.before.kind == "file":
            gone.setdefault(change.before.sha256 or "", change.path)
    paired: list[FileChange] = []
    for change in changes:
        source = None
        if change.change == "created" and change.after and change.after.kind == "file":
            source = gone.pop(change.after.sha256 or "", None)
        if source is not None:
            change = change.model_copy(update={"change": "renamed", "renamed_from": source})
        paired.append(change)
    return tuple(sorted(paired, key=lambda c: c.path))
