"""Reading one path's state (kind, mode, size, hash) and counting changed lines.

``file_state_at`` and ``read_bytes_at`` read a path below a root (the workdir,
a layer) without following a symlink anywhere on the way (``beneath``): what
harness shows an approver must come from the tree, never from where a link
the agent planted points. ``file_state`` and ``read_bytes`` take a whole path
and guard only its last component.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from harness.effects._beneath import (
    lstat_beneath,
    open_regular_beneath,
    read_beneath,
    readlink_beneath,
)
from harness.effects._changeset import FileState
from harness.effects._diff import PREVIEW_BUDGET, line_opcodes
from harness.effects._journal_budget import sparse_sha256

__all__ = [
    "MAX_DIFF_BYTES",
    "file_state",
    "file_state_at",
    "line_counts",
    "read_bytes",
    "read_bytes_at",
]

# Above this a file is not diffed line by line: every line counts as replaced.
MAX_DIFF_BYTES = 1024 * 1024


def file_state(path: Path | str) -> FileState | None:
    """The state at ``path`` (not following a symlink); None when nothing is there."""
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISDIR(info.st_mode):
        return FileState(kind="dir", mode=mode)
    if stat.S_ISLNK(info.st_mode):
        return _link_state(mode, os.readlink(path))
    if stat.S_ISREG(info.st_mode):
        return FileState(kind="file", mode=mode, size=info.st_size, sha256=_hash(path))
    return FileState(kind="special", mode=mode)


def file_state_at(root: Path, rel: str) -> FileState | None:
    """The state at ``root/rel``, no symlink followed on the way; None when nothing is there.

    A path below a symlink (or below a file) has nothing there. A regular file
    swapped for something else between the look and the hash is reported as
    ``special`` with no hash, so it never matches a recorded state.
    """
    info = lstat_beneath(root, rel)
    if info is None:
        return None
    mode = stat.S_IMODE(info.st_mode)
    if stat.S_ISDIR(info.st_mode):
        return FileState(kind="dir", mode=mode)
    if stat.S_ISLNK(info.st_mode):
        target = readlink_beneath(root, rel)
        if target is None:
            return FileState(kind="special", mode=mode)
        return _link_state(mode, target)
    if stat.S_ISREG(info.st_mode):
        fd = open_regular_beneath(root, rel)
        if fd is None:
            return FileState(kind="special", mode=mode)
        size = os.fstat(fd).st_size
        return FileState(kind="file", mode=mode, size=size, sha256=_hash_fd(fd))
    return FileState(kind="special", mode=mode)


def _link_state(mode: int, target: str) -> FileState:
    data = os.fsencode(target)
    return FileState(
        kind="symlink",
        mode=mode,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        target=target,
    )


def _hash(path: Path | str) -> str:
    # O_NOFOLLOW: a symlink swapped in after the lstat is not followed.
    return _hash_fd(os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK))


def _hash_fd(fd: int) -> str:
    """sha256 of what ``fd`` reads (it is closed). Holes are hashed as zeros without
    reading them (``truncate -s 1G`` costs no reads)."""
    try:
        return sparse_sha256(fd)
    finally:
        os.close(fd)


def read_bytes_at(root: Path, rel: str, limit: int = MAX_DIFF_BYTES) -> bytes | None:
    """The bytes of the regular file ``root/rel`` when at most ``limit`` long, else None.

    No symlink is followed on the way; a path below one reads as None.
    """
    try:
        data, _ = read_beneath(root, rel, limit)
    except (OSError, ValueError):
        return None
    return data


def read_bytes(path: Path | str, limit: int = MAX_DIFF_BYTES) -> bytes | None:
    """A regular file's bytes when it is at most ``limit`` long; None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read(limit + 1)


def line_counts(
    old: bytes | None, new: bytes | None, max_cells: int = PREVIEW_BUDGET.max_cells
) -> tuple[int, int, bool]:
    """(added, removed, binary) between two texts; replaced lines count as both.

    A side that is missing counts as empty. A side that is not UTF-8 text makes
    the pair binary: every old line counts as removed (the approver gets sizes
    and hashes, not a diff). A changed middle over ``max_cells`` (``diff``)
    counts all of its lines as replaced.
    """
    before, after = _text(old), _text(new)
    if before is None or after is None:
        removed = (old or b"").count(b"\n") + (1 if old and not old.endswith(b"\n") else 0)
        return 0, removed, True
    a, b = before.splitlines(), after.splitlines()
    ops = line_opcodes(a, b, max_cells)
    if ops is None:
        prefix_and_suffix = _shared_ends(a, b)
        return len(b) - prefix_and_suffix, len(a) - prefix_and_suffix, False
    added = removed = 0
    for tag, i1, i2, j1, j2 in ops:
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed, False


def _shared_ends(a: list[str], b: list[str]) -> int:
    """Lines equal at the start plus at the end (never overlapping)."""
    ops = line_opcodes(a, b, 0) or []
    return sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")


def _text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
