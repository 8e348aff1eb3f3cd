"""Reading one path's state (kind, mode, size, hash) and counting changed lines."""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from pathlib import Path

from harness.effects.changeset import FileState
from harness.effects.journal_budget import sparse_sha256

__all__ = ["MAX_DIFF_BYTES", "file_state", "line_counts", "read_bytes"]

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
        target = os.readlink(path)
        data = os.fsencode(target)
        return FileState(
            kind="symlink",
            mode=mode,
            size=len(data),
            sha256=hashlib.sha256(data).hexdigest(),
            target=target,
        )
    if stat.S_ISREG(info.st_mode):
        return FileState(kind="file", mode=mode, size=info.st_size, sha256=_hash(path))
    return FileState(kind="special", mode=mode)


def _hash(path: Path | str) -> str:
    # O_NOFOLLOW: a symlink swapped in after the lstat is not followed. Holes are
    # hashed as zeros without reading them (``truncate -s 1G`` costs no reads).
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        return sparse_sha256(fd)
    finally:
        os.close(fd)


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


def line_counts(old: bytes | None, new: bytes | None) -> tuple[int, int, bool]:
    """(added, removed, binary) between two texts; replaced lines count as both.

    A side that is missing counts as empty. A side that is not UTF-8 text makes
    the pair binary: every old line counts as removed (the approver gets sizes
    and hashes, not a diff).
    """
    before, after = _text(old), _text(new)
    if before is None or after is None:
        removed = (old or b"").count(b"\n") + (1 if old and not old.endswith(b"\n") else 0)
        return 0, removed, True
    a, b = before.splitlines(), after.splitlines()
    added = removed = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            removed += i2 - i1
        if tag in ("replace", "insert"):
            added += j2 - j1
    return added, removed, False


def _text(data: bytes | None) -> str | None:
    if data is None:
        return ""
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
