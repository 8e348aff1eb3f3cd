"""Atomic file writes: the one way harness persists anything.

Every store (memory aside, which appends), trace, report, cassette and file
tool writes through here: a temp file in the same folder, then ``os.replace``,
so a reader sees the old file or the new one, never half of either, and a
failed write leaves no temp file behind.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_text"]


def atomic_write_bytes(
    path: Path, data: bytes, *, durable: bool = True, keep_mode: bool = False
) -> None:
    """Replace ``path`` with ``data`` atomically, creating parent folders.

    Args:
        durable: fsync before the rename, so the new content survives a power
            loss. Traces skip it: they are diagnostics and the fsync dominated
            their cost.
        keep_mode: an existing file keeps its permission bits (file tools).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    mode: int | None = None
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


def atomic_write_text(path: Path, text: str, *, durable: bool = True) -> None:
    """``atomic_write_bytes`` of UTF-8 text."""
    atomic_write_bytes(path, text.encode("utf-8"), durable=durable)


def _write_all(fd: int, data: bytes) -> None:
    # os.write may write less than asked (signals, quotas).
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
