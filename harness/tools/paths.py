"""Confining file tools to the workdir and keeping them out of the state dir.

The state dir (``HARNESS_STATE_DIR``, default ``<workdir>/.harness``) holds
sessions, approvals and checkpoints; only harness writes it (SPEC section 14),
so a path that lands there is refused before the workdir check, whatever its
spelling. These are checks on names; ``safe_open`` repeats them on the open
descriptors, so a symlink swapped in after this check cannot redirect a call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ToolError

__all__ = [
    "DEFAULT_STATE_DIR_NAME",
    "FileScope",
    "display_path",
    "inside",
    "resolve_in_workdir",
    "state_dir_refusal",
]

DEFAULT_STATE_DIR_NAME = ".harness"
"""The state dir's name inside the workdir when ``HARNESS_STATE_DIR`` is not set."""


@dataclass(frozen=True, slots=True)
class FileScope:
    """Where the file tools may go: inside ``workdir``, never inside ``state_dir``.

    Both are resolved (no symlinks, absolute). Build it with ``of``.
    """

    workdir: Path
    state_dir: Path

    @classmethod
    def of(cls, workdir: Path, state_dir: Path | None = None) -> FileScope:
        """The scope of a tool call; ``state_dir`` None means ``<workdir>/.harness``."""
        root = workdir.resolve()
        return cls(root, (state_dir or root / DEFAULT_STATE_DIR_NAME).resolve())

    def resolve(self, raw: object) -> Path:
        """``resolve_in_workdir`` for this scope."""
        # The roots were resolved when the scope was made: a tool call resolved them
        # again for every path it checked and showed (a realpath is an lstat per part).
        return _resolve_in(self.workdir, raw, self.state_dir)

    def show(self, path: Path) -> str:
        """The path as the model should see it."""
        return _shown(self.workdir, path)


def resolve_in_workdir(workdir: Path, raw: object, *, state_dir: Path | None = None) -> Path:
    """Resolve ``raw`` against ``workdir`` and refuse anything that lands outside it.

    Symlinks are resolved before the check, so a link inside the workdir that
    points outside is refused too; so is ``..`` and an absolute path elsewhere.
    A path inside ``state_dir`` is refused first, with a message that names it.
    """
    return _resolve_in(workdir.resolve(), raw, None if state_dir is None else state_dir.resolve())


def _resolve_in(root: Path, raw: object, state_dir: Path | None) -> Path:
    """``resolve_in_workdir`` with ``root`` and ``state_dir`` already resolved."""
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError(
            "argument 'path' must be a non-empty string path relative to the workdir",
            error_type="invalid_arguments",
        )
    if "\x00" in raw:
        raise ToolError("argument 'path' contains a NUL byte", error_type="invalid_arguments")
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    try:
        resolved = Path(os.path.realpath(candidate))
    except OSError:  # a link vanished between realpath's lstat and readlink
        raise ToolError(
            f"path {raw!r} changed while it was being checked (a symlink in it was "
            "replaced); nothing was read or written. Try again",
            error_type="path_changed",
        ) from None
    if state_dir is not None and inside(resolved, state_dir):
        raise state_dir_refusal(raw, state_dir)
    if not inside(resolved, root):
        raise ToolError(
            f"path {raw!r} is outside the workdir {str(root)!r}; "
            "use a path inside the workdir (symlinks and '..' that leave it are refused)",
            error_type="path_outside_workdir",
        )
    return resolved


def inside(path: Path, folder: Path) -> bool:
    """True when ``path`` is ``folder`` or below it (both resolved)."""
    # Lexical, as ``folder in path.parents`` was, without making a Path per parent.
    parts = folder.parts
    return path.parts[: len(parts)] == parts


def state_dir_refusal(raw: str, state_dir: Path) -> ToolError:
    """The error for a path that reaches the state dir."""
    return ToolError(
        f"path {raw!r} is inside the harness state dir {str(state_dir)!r} "
        "(HARNESS_STATE_DIR); that folder belongs to harness (sessions, approvals, "
        "checkpoints, traces) and the file tools never read or change it. "
        "Work on files elsewhere in the workdir",
        error_type="state_dir",
    )


def display_path(workdir: Path, path: Path) -> str:
    """The path as the model should see it: relative to the workdir."""
    return _shown(workdir.resolve(), path)


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix() or "."
    except ValueError:
        return str(path)
