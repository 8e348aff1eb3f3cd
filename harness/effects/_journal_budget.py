"""Size budgets of applying a change: what the journal keeps and what the apply writes.

Three rules, each a reason for the effect policy to pause the change (a human
then sees it before harness copies anything):

* the prior bytes the undo journal would keep exceed ``undo`` (by default
  64 MiB per change, ``HARNESS_UNDO_BUDGET``): an auto-applied change must be
  reversible, and the journal must not fill the state dir's disk;
* the new bytes exceed ``apply`` (by default 256 MiB per change,
  ``HARNESS_APPLY_BUDGET``);
* a new file is sparse (more than ``SPARSE_SLACK`` bytes of holes): ``truncate
  -s 1T`` costs nothing in the layer, and an apply that copied it naively
  would write every zero to the host's disk.

Copies made by the apply and the journal keep holes as holes (``copy_sparse``),
so even an approved sparse file costs only its data on disk.
"""

from __future__ import annotations

import errno
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from harness.effects._changeset import Changeset, FileState

__all__ = [
    "DEFAULT_APPLY_BUDGET",
    "DEFAULT_UNDO_BUDGET",
    "SPARSE_SLACK",
    "ApplyBudget",
    "budget_reasons",
    "copy_sparse",
    "kept_bytes",
    "moved_sources",
    "sparse_sha256",
]

DEFAULT_UNDO_BUDGET = 64 * 1024 * 1024
DEFAULT_APPLY_BUDGET = 256 * 1024 * 1024
SPARSE_SLACK = 1024 * 1024
"""Holes up to this size are ordinary (file systems leave small ones)."""

_CHUNK = 1 << 20
_ZEROS = bytes(_CHUNK)


@dataclass(frozen=True, slots=True)
class ApplyBudget:
    """Bytes one change may keep in the journal (``undo``) and write (``apply``)."""

    undo: int = DEFAULT_UNDO_BUDGET
    apply: int = DEFAULT_APPLY_BUDGET


def kept_bytes(before: FileState | None, after: FileState | None) -> int:
    """Prior bytes the journal keeps for one path (a pure mode change keeps none)."""
    if before is None or before.kind != "file":
        return 0
    if after is not None and after.kind == "file" and after.sha256 == before.sha256:
        return 0
    return before.size


def moved_sources(changeset: Changeset) -> dict[str, str]:
    """Paths whose bytes a rename moved within the workdir -> where they went.

    The journal keeps no copy of them: undo moves the bytes back from where
    they are (checked against the digest), so a renamed gigabyte costs nothing.
    """
    return {
        c.renamed_from: c.path
        for c in changeset.changes
        if c.change == "renamed" and c.renamed_from is not None
    }


def budget_reasons(changeset: Changeset, upper: Path | None, budget: ApplyBudget) -> list[str]:
    """Why applying ``changeset`` needs a human because of its size; empty when it fits.

    Args:
        upper: where the new content is (a bash call's layer), to find sparse
            files; None for ``write``/``edit`` (their content is in memory).
    """
    reasons: list[str] = []
    moved = moved_sources(changeset)
    keep = sum(kept_bytes(c.before, c.after) for c in changeset.changes if c.path not in moved)
    if keep > budget.undo:
        reasons.append(
            f"overwrites or deletes {_size(keep)}, over the undo budget of {_size(budget.undo)} "
            "(HARNESS_UNDO_BUDGET): harness could not keep it to undo the change"
        )
    new = [c for c in changeset.changes if c.after is not None and c.after.kind == "file"]
    holes = {c.path: _holes(upper / c.path) if upper is not None else 0 for c in new}
    # Holes are copied as holes: only the data counts against the apply budget.
    data = {c.path: (c.after.size if c.after else 0) - holes[c.path] for c in new}
    written = sum(data.values())
    if written > budget.apply:
        largest = max(data, key=lambda path: data[path])
        reasons.append(
            f"writes {_size(written)} (largest: {largest}), over the apply budget of "
            f"{_size(budget.apply)} (HARNESS_APPLY_BUDGET)"
        )
    for change in new:
        if holes[change.path] > SPARSE_SLACK:
            size = change.after.size if change.after else 0
            reasons.append(
                f"{change.path} is a sparse file ({_size(size)}, {_size(data[change.path])} "
                "of it data): applied, its holes stay holes"
            )
    return reasons


def _size(count: int) -> str:
    """``1.0 GiB (1073741824 bytes)``; small counts in bytes only."""
    if count < 1024 * 1024:
        return f"{count} bytes"
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if count >= scale:
            return f"{count / scale:.1f} {unit} ({count} bytes)"
    return f"{count} bytes"  # pragma: no cover - the loop always returns


def _holes(path: Path) -> int:
    """Bytes of ``path`` not allocated on disk (0 when it cannot be told)."""
    try:
        info = os.lstat(path)
    except OSError:
        return 0
    return max(0, info.st_size - info.st_blocks * 512)


def copy_sparse(source: int, target: int) -> str:
    """Copy file descriptor ``source`` to ``target`` keeping holes; the sha256 of the bytes.

    Data extents are found with ``SEEK_DATA``/``SEEK_HOLE`` and copied; holes
    are skipped (read back as zeros, hashed as zeros) and the size set with
    ``ftruncate``. On a file system without ``SEEK_DATA`` it copies every byte.
    """
    digest = hashlib.sha256()
    size = os.fstat(source).st_size
    for start, end, data in _extents(source, size):
        if data:
            _copy_range(source, target, start, end, digest)
        else:
            _hash_zeros(digest, end - start)
    # Bytes appended after the fstat are not copied: the hash then differs and
    # the caller refuses the copy (changed meanwhile).
    os.ftruncate(target, size)
    return digest.hexdigest()


def sparse_sha256(source: int) -> str:
    """sha256 of an open file's bytes, its holes hashed as zeros without reading them."""
    digest = hashlib.sha256()
    size = os.fstat(source).st_size
    for start, end, data in _extents(source, size):
        if not data:
            _hash_zeros(digest, end - start)
            continue
        offset = start
        while offset < end:
            chunk = os.pread(source, min(_CHUNK, end - offset), offset)
            if not chunk:
                break
            digest.update(chunk)
            offset += len(chunk)
    return digest.hexdigest()


def _extents(source: int, size: int) -> Iterator[tuple[int, int, bool]]:
    """(start, end, holds data) ranges of ``source`` up to ``size``, in order."""
    offset = 0
    while offset < size:
        try:
            data = os.lseek(source, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole is left
                data = size
            elif exc.errno == errno.EINVAL:  # no SEEK_DATA here: all of it is data
                data = offset
            else:
                raise
        data = min(data, size)
        if data > offset:
            yield offset, data, False
        if data >= size:
            return
        try:
            hole = os.lseek(source, data, os.SEEK_HOLE)
        except OSError:
            hole = size
        hole = min(hole, size)
        yield data, hole, True
        offset = hole


def _copy_range(source: int, target: int, start: int, end: int, digest: hashlib._Hash) -> None:
    offset = start
    while offset < end:
        chunk = os.pread(source, min(_CHUNK, end - offset), offset)
        if not chunk:
            break
        digest.update(chunk)
        view = memoryview(chunk)
        at = offset
        while view:
            written = os.pwrite(target, view, at)
            view = view[written:]
            at += written
        offset += len(chunk)


def _hash_zeros(digest: hashlib._Hash, count: int) -> None:
    while count > 0:
        step = min(count, _CHUNK)
        digest.update(_ZEROS[:step] if step < _CHUNK else _ZEROS)
        count -= step
