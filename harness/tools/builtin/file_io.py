"""File access shared by the writing tools: strict UTF-8 reads and atomic writes.

OS errors are translated into ``ToolError`` here, where they enter harness, so
the tools above only ever see messages the model can act on.
"""

from __future__ import annotations

import stat
from pathlib import Path

from harness.core.errors import ToolError
from harness.files import atomic_write_bytes

__all__ = ["BINARY_PROBE_BYTES", "atomic_write", "decode_utf8", "is_binary", "read_text"]

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


def read_text(path: Path, shown: str, *, max_bytes: int = _DEFAULT_MAX_BYTES) -> str:
    """Read an existing text file as UTF-8, keeping every byte (no newline translation).

    Raises:
        ToolError: the file is missing, a directory, too large, binary or not UTF-8.
    """
    try:
        info = path.stat()
    except FileNotFoundError:
        raise ToolError(
            f"file not found: {shown}; check the path (use the write tool to create a new file)",
            error_type="file_not_found",
        ) from None
    except OSError as exc:
        raise _os_error("read", shown, exc) from None
    if stat.S_ISDIR(info.st_mode):
        raise ToolError(
            f"{shown} is a directory, not a file; give the path of a file inside it",
            error_type="is_directory",
        )
    if info.st_size > max_bytes:
        raise ToolError(
            f"{shown} is {info.st_size} bytes, over the limit of {max_bytes} bytes "
            "for this tool; change it with bash instead",
            error_type="file_too_large",
        )
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _os_error("read", shown, exc) from None
    return decode_utf8(data, shown)


def atomic_write(path: Path, data: bytes, shown: str) -> None:
    """Replace ``path`` with ``data`` atomically, keeping an existing file's mode.

    Raises:
        ToolError: the write failed; no temp file is left behind.
    """
    try:
        atomic_write_bytes(path, data, keep_mode=True)
    except OSError as exc:
        raise _os_error("write", shown, exc) from None


def _os_error(action: str, shown: str, exc: OSError) -> ToolError:
    reason = exc.strerror or type(exc).__name__
    return ToolError(
        f"could not {action} {shown}: {reason}; check the path and its permissions",
        error_type="os_error",
    )
