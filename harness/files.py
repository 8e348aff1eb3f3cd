"""Atomic file writes: the one way harness persists anything.

Every store (memory aside, which appends), trace, report, cassette and file
tool writes through here: a temp file in the same folder, then ``os.replace``,
so a reader sees the old file or the new one, never half of either, and a
failed write leaves no temp file behind.

Harness's own state (approvals, checkpoints, memory, plans, traces, event ids)
is written ``private``: files 0600 and every folder harness creates for it
0700, since the state holds prompts, answers and decisions that other local
users have no business reading.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

__all__ = [
    "PRIVATE_DIR_MODE",
    "PRIVATE_FILE_MODE",
    "atomic_write_bytes",
    "atomic_write_text",
    "make_private_dirs",
    "write_new_file",
]

PRIVATE_FILE_MODE = 0o600
PRIVATE_DIR_MODE = 0o700


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents, each 0700 (``mkdir -p -m 700``).

    ``Path.mkdir(mode=..., parents=True)`` gives the mode to the last folder only.
    """
    missing: list[Path] = []
    for folder in (path, *path.parents):
        if folder.is_dir():
            break
        missing.append(folder)
    for folder in reversed(missing):
        try:
            os.mkdir(folder, PRIVATE_DIR_MODE)
        except FileExistsError:
            if not folder.is_dir():
                raise


def atomic_write_bytes(
    path: Path, data: bytes, *, durable: bool = True, keep_mode: bool = False, private: bool = False
) -> None:
    """Replace ``path`` with ``data`` atomically, creating parent folders.

    Args:
        durable: fsync before the rename, so the new content survives a power
            loss. Traces skip it: they are diagnostics and the fsync dominated
            their cost.
        keep_mode: an existing file keeps its permission bits (file tools).
        private: harness state: the file is 0600, folders made for it 0700.
    """
    if private:
        make_private_dirs(path.parent)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    mode: int | None = PRIVATE_FILE_MODE if private else None
    if keep_mode:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except FileNotFoundError:
            mode = None
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666 if mode is None else 0o600)
        try:
            if mode is not None:
                os.fchmod(fd, mode)
            _write_all(fd, data)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_text(
    path: Path, text: str, *, durable: bool = True, private: bool = False
) -> None:
    """``atomic_write_bytes`` of UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable, private=private)


def write_new_file(path: Path, data: bytes) -> None:
    """Create ``path`` (it must not exist) holding ``data``, with no temporary name.

    Only for a file inside a folder that is itself still a temporary, renamed
    into place once complete (``harness.evals._runner.keep_traces``): nobody can
    see the file half-written.
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        _write_all(fd, data)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (signals, quotas).
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
