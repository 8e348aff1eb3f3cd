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

Neither side is read through a symlink: both are walked from their root's
descriptor (``beneath``). Below a symlink of the workdir there is nothing, so
a call that swaps ``kd -> <key folder>`` for a folder of its own shows only
its own files, never the bytes the link pointed at.
"""

from __future__ import annotations

import stat
from collections.abc import Iterable
from pathlib import Path

from harness.effects._beneath import getxattr_beneath, listdir_beneath, lstat_beneath
from harness.effects._changeset import Changeset, FileChange, FileState
from harness.effects._files import MAX_DIFF_BYTES, file_state_at, line_counts, read_bytes_at

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
    """The change at ``path``; ``old``/``new`` are the roots below which the two sides'
    bytes are read (at ``path``, no symlink followed), None where a side has none."""
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
    added, removed, binary = _lines(path, before, after, old, new)
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
    state = file_state_at(lower, rel)
    if state is None:
        return
    if state.kind == "dir":
        for name in _names(lower, rel):
            deleted_tree(lower, f"{rel}/{name}", changes)
    change = change_between(rel, state, None, lower, None)
    if change is not None:
        changes.append(change)


def _walk(
    upper: Path, lower: Path, rel: str, changes: list[FileChange], skip: frozenset[str]
) -> None:
    for name in _names(upper, rel):
        path = f"{rel}/{name}" if rel else name
        if path in skip:
            continue
        _entry(upper, lower, path, changes, skip)


def _entry(
    upper: Path, lower: Path, path: str, changes: list[FileChange], skip: frozenset[str]
) -> None:
    info = lstat_beneath(upper, path)
    if info is None:
        return  # gone since the listing: nothing the call left there
    before = file_state_at(lower, path)
    if stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:  # a whiteout
        deleted_tree(lower, path, changes)
        return
    after = file_state_at(upper, path)
    if after is None:
        return
    if before is not None and before.kind == "dir" and after.kind != "dir":
        _delete_children(lower, path, changes)
    if after.kind != "dir":
        change = change_between(path, before, after, lower, upper)
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
    if _opaque(upper, path):
        present = set(_names(upper, path))
        for name in _names(lower, path):
            if name not in present:
                deleted_tree(lower, f"{path}/{name}", changes)
    _walk(upper, lower, path, changes, skip)


def _delete_children(lower: Path, path: str, changes: list[FileChange]) -> None:
    for name in _names(lower, path):
        deleted_tree(lower, f"{path}/{name}", changes)


def _names(root: Path, rel: str) -> list[str]:
    """The sorted names in the folder ``root/rel``; none when it is not a folder there."""
    try:
        return listdir_beneath(root, rel) or []
    except OSError:
        return []


def _opaque(upper: Path, path: str) -> bool:
    return any(getxattr_beneath(upper, path, name) == b"y" for name in _OPAQUE)


def _lines(
    path: str, before: FileState | None, after: FileState | None, old: Path | None, new: Path | None
) -> tuple[int, int, bool]:
    old_bytes = _content(before, old, path)
    new_bytes = _content(after, new, path)
    if old_bytes is _TOO_BIG or new_bytes is _TOO_BIG:
        # Too big to diff: count every byte of the old file as a removed line (fails closed).
        return 0, before.size if before is not None else 0, True
    assert not isinstance(old_bytes, _Big) and not isinstance(new_bytes, _Big)
    return line_counts(old_bytes, new_bytes)


class _Big:
    pass


_TOO_BIG = _Big()


def _content(state: FileState | None, root: Path | None, path: str) -> bytes | _Big | None:
    if state is None or state.kind != "file" or root is None:
        return None
    if state.size > MAX_DIFF_BYTES:
        return _TOO_BIG
    data = read_bytes_at(root, path)
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
