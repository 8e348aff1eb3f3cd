"""File access shared by the file tools: strict UTF-8 reads and atomic writes.

The opening and replacing itself (no symlink followed, regular files only,
never the state dir) is ``harness.tools._safe_open``; OS errors become
``ToolError`` there, so the tools above only see messages the model can act on.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harness.core.errors import ToolError
from harness.effects import FileState, UndoJournal, journal_origin, open_dir_nofollow, state_at
from harness.tools._safe_open import read_regular_file, replace_regular_file
from harness.tools.paths import FileScope

__all__ = [
    "BINARY_PROBE_BYTES",
    "atomic_write",
    "decode_utf8",
    "is_binary",
    "read_text",
    "undo_journal",
]

BINARY_PROBE_BYTES = 8192
"""How much of a file is searched for a NUL byte to call it binary (as git does)."""

_DEFAULT_MAX_BYTES = 20_000_000


def is_binary(data: bytes) -> bool:
    """True when ``data`` has a NUL byte in its first ``BINARY_PROBE_BYTES`` bytes."""
    return b"\x00" in data[:BINARY_PROBE_BYTES]


def decode_utf8(data: bytes, shown: str) -> str:
    """Decode ``data`` strictly as UTF-8, refusing binary and other encodings.

    Args:
        data: the raw file content.
        shown: the path as the model sees it, for the error message.

    Raises:
        ToolError: ``binary_file`` or ``not_utf8``.
    """
    if is_binary(data):
        raise ToolError(
            f"{shown} looks like a binary file (it has a NUL byte); "
            "only UTF-8 text files can be changed with this tool",
            error_type="binary_file",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ToolError(
            f"{shown} is not valid UTF-8 (byte {exc.start}, line {line}); this tool only "
            "changes UTF-8 text files. Convert the file first (e.g. with iconv via bash) "
            "or leave it unchanged",
            error_type="not_utf8",
        ) from None


def read_text(scope: FileScope, path: Path, *, max_bytes: int = _DEFAULT_MAX_BYTES) -> str:
    """Read an existing regular text file as UTF-8, keeping every byte (no newline translation).

    ``path`` comes from ``scope.resolve``; the open re-checks it (see ``safe_open``).

    Raises:
        ToolError: the file is missing, a directory, not a regular file, too
            large, inside the state dir, binary or not UTF-8.
    """
    try:
        data = read_regular_file(scope, path, max_bytes=max_bytes)
    except ToolError as exc:
        if exc.error_type == "file_not_found":
            raise ToolError(
                f"{exc}; check the path (use the write tool to create a new file)",
                error_type="file_not_found",
            ) from None
        raise
    return decode_utf8(data, scope.show(path))


def atomic_write(
    scope: FileScope,
    path: Path,
    data: bytes,
    *,
    exclusive: bool = False,
    make_parents: bool = False,
    journal: UndoJournal | None = None,
) -> bool:
    """Replace ``path`` with ``data`` atomically, keeping an existing file's mode and owner.

    Args:
        journal: keeps the file's prior bytes and records the change first, so
            ``harness undo`` can put it back (the entry is dropped if the write fails).

    Returns:
        Whether the file existed before.

    Raises:
        ToolError: the write failed or was refused; no temp file is left behind.
    """
    entry = None
    if journal is not None and path != scope.workdir and path.is_relative_to(scope.workdir):
        before = _before(scope, path)
        if not (exclusive and before is not None):  # create refuses it: nothing to record
            after = FileState(
                kind="file",
                mode=before.mode if before is not None and before.kind == "file" else 0o644,
                size=len(data),
                sha256=hashlib.sha256(data).hexdigest(),
            )
            rel = path.relative_to(scope.workdir).as_posix()
            made = _missing_folders(scope, path) if make_parents else []
            folder = FileState(kind="dir", mode=0o755)  # undo removes it again when empty
            changes = [*((name, None, folder) for name in made), (rel, before, after)]
            entry = journal.record_files(changes, scope.workdir)
    try:
        return replace_regular_file(
            scope, path, data, exclusive=exclusive, make_parents=make_parents
        )
    except BaseException:
        if entry is not None and journal is not None:
            journal.forget(entry)
        raise


def undo_journal(
    state_dir: Path | None, workdir: Path, metadata: Mapping[str, Any], tool: str, budget: int
) -> UndoJournal | None:
    """The journal a file tool's call records into; None for a tool given no state dir.

    The application always gives one; a tool built bare (a script, a test) writes
    nothing beside the files it is asked to write.
    """
    if state_dir is None:
        return None
    scope = FileScope.of(workdir, state_dir)
    return UndoJournal(scope.state_dir, journal_origin(metadata, tool, budget))


def _missing_folders(scope: FileScope, path: Path) -> list[str]:
    """The folders on the way to ``path`` the write will make (shallowest first)."""
    parts = list(path.parent.relative_to(scope.workdir).parts)
    for depth in range(len(parts)):
        try:
            os.close(open_dir_nofollow(scope.workdir, parts[: depth + 1]))
        except FileNotFoundError:
            return ["/".join(parts[: end + 1]) for end in range(depth, len(parts))]
        except OSError:
            return []  # a symlink or a file on the way: the write refuses it
    return []


def _before(scope: FileScope, path: Path) -> FileState | None:
    """What is at ``path`` now, reached without following a symlink; None when nothing is.

    A folder on the way that is missing, a symlink or unreachable (a name too
    long) also gives None: the write then makes it, or refuses with its own
    clear error before anything changes.
    """
    parts = list(path.parent.relative_to(scope.workdir).parts)
    try:
        dir_fd = open_dir_nofollow(scope.workdir, parts)
    except OSError:
        return None
    try:
        return state_at(dir_fd, path.name)
    except OSError:
        return None
    finally:
        os.close(dir_fd)
