"""What a call changed in the workdir: the changeset model shared by bash, write and edit.

A ``Changeset`` lists one ``FileChange`` per path whose content, kind or mode
differs between before (the real workdir) and after (the call's layer, or the
text ``write``/``edit`` would produce). Paths are relative to the workdir,
POSIX style. ``digest`` is what an approval record signs: it names every
change with the hash of the content it had before and will have after, so the
layer cannot be swapped between pause and approve without the apply noticing.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, PlainSerializer

__all__ = [
    "ChangeKind",
    "Changeset",
    "EntryKind",
    "FileChange",
    "FileState",
    "FsPath",
    "shown_path",
    "special_skipped",
    "summarize",
]

EntryKind = Literal["file", "symlink", "dir", "special"]
ChangeKind = Literal["created", "modified", "deleted", "renamed", "mode"]

_SPECIAL_BITS = 0o6000
_FS_BYTES = "fs_bytes_hex"


def _path_to_json(path: str) -> Any:
    """A name that is not UTF-8 (``os.fsdecode`` kept its bytes as surrogates) as its bytes.

    JSON strings cannot hold lone surrogates; without this a changeset or journal
    entry naming such a file could not be saved, so the file could never be applied.
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return {_FS_BYTES: os.fsencode(path).hex()}
    return path


def _path_from_json(value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {_FS_BYTES}:
        try:
            return os.fsdecode(bytes.fromhex(str(value[_FS_BYTES])))
        except ValueError as exc:
            raise ValueError(f"a file name's bytes are not hex ({exc})") from None
    return value


def shown_path(path: str) -> str:
    """``path`` for a reader: bytes that are not UTF-8 as ``\\xNN`` (``caf\\xe9.txt``)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", "backslashreplace")
    return path


FsPath = Annotated[
    str,
    BeforeValidator(_path_from_json),
    PlainSerializer(_path_to_json, return_type=Any, when_used="json"),
]
"""A workdir-relative POSIX path; any name the file system allows, in JSON too."""


class FileState(BaseModel):
    """One side of a change: what was (or will be) at a path.

    Attributes:
        kind: regular file, symlink, directory or anything else (FIFO, socket).
        mode: the permission bits (``st_mode & 0o7777``).
        size: bytes of a file, length of a symlink's target.
        sha256: of a file's bytes, of a symlink's target; None for folders.
        target: a symlink's target.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: EntryKind
    mode: int = 0
    size: int = 0
    sha256: str | None = None
    target: FsPath | None = None

    @property
    def setid(self) -> bool:
        return self.kind == "file" and bool(self.mode & _SPECIAL_BITS)


class FileChange(BaseModel):
    """One path's change. ``before`` None: created; ``after`` None: deleted.

    Attributes:
        renamed_from: for ``renamed``, the path the content moved from (that path
            has its own ``deleted`` entry, so applying stays path by path).
        removed_lines: existing lines removed or replaced (text files only).
        added_lines: lines added or replaced in.
        binary: either side is not UTF-8 text, so no line diff exists.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: FsPath
    change: ChangeKind
    before: FileState | None = None
    after: FileState | None = None
    renamed_from: FsPath | None = None
    removed_lines: int = 0
    added_lines: int = 0
    binary: bool = False


class Changeset(BaseModel):
    """Everything one call changed, plus what it wrote where nothing is kept.

    Attributes:
        changes: sorted by path.
        discarded: places outside the workdir the call wrote to (private
            ``/tmp``, ``/dev/shm``, the covered state dir), with what was there;
            none of it is kept.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    changes: tuple[FileChange, ...] = ()
    discarded: tuple[FsPath, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.changes

    @property
    def digest(self) -> str:
        """sha256 of the canonical JSON of the changes (what a record signs)."""
        canonical = json.dumps(
            [change.model_dump(mode="json") for change in self.changes],
            sort_keys=True,
            separators=(",", ":"),
        )
        return hashlib.sha256(canonical.encode()).hexdigest()

    @property
    def removed_lines(self) -> int:
        return sum(change.removed_lines for change in self.changes)


def summarize(changeset: Changeset) -> str:
    """One line naming the changes, e.g. ``changes: created a.txt; modified b.py (+2 -1)``."""
    if changeset.empty:
        line = "changes: none in the workdir"
    else:
        parts = [_one(change) for change in changeset.changes[:_LISTED]]
        more = len(changeset.changes) - _LISTED
        if more > 0:
            parts.append(f"and {more} more")
        line = "changes: " + "; ".join(parts)
    if changeset.discarded:
        shown = ", ".join(shown_path(note) for note in changeset.discarded)
        line += f" (discarded, outside the workdir: {shown})"
    return line


_LISTED = 12


def special_skipped(change: FileChange) -> bool:
    """A FIFO, socket or device made by the call: never applied (nothing to copy)."""
    return change.after is not None and change.after.kind == "special"


def _one(change: FileChange) -> str:
    name = shown_path(change.path) + ("/" if _is_dir(change) else "")
    if special_skipped(change):
        return (
            f"not applied {name} (a FIFO, socket or device: harness applies only files, "
            "folders and symlinks; make it again outside harness if it is needed)"
        )
    if change.change == "renamed":
        return f"renamed {shown_path(change.renamed_from or '')} -> {name}"
    if change.change == "modified" and not change.binary:
        return f"modified {name} (+{change.added_lines} -{change.removed_lines})"
    if change.change == "mode" and change.before and change.after:
        return f"mode {name} {change.before.mode:o} -> {change.after.mode:o}"
    return f"{change.change} {name}"


def _is_dir(change: FileChange) -> bool:
    state = change.after or change.before
    return state is not None and state.kind == "dir"
