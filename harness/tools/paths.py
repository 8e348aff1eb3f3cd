"""Confining file tools to the workdir."""

from __future__ import annotations

import os
from pathlib import Path

from harness.core.errors import ToolError

__all__ = ["display_path", "resolve_in_workdir"]


def resolve_in_workdir(workdir: Path, raw: object) -> Path:
    """Resolve ``raw`` against ``workdir`` and refuse anything that lands outside it.

    Symlinks are resolved before the check, so a link inside the workdir that
    points outside is refused too; so is ``..`` and an absolute path elsewhere.
    """
    if not isinstance(raw, str) or not raw.strip():
        raise ToolError(
            "argument 'path' must be a non-empty string path relative to the workdir",
            error_type="invalid_arguments",
        )
    if "\x00" in raw:
        raise ToolError("argument 'path' contains a NUL byte", error_type="invalid_arguments")
    root = workdir.resolve()
    candidate = Path(raw).expanduser()
    if not candidate.is_absolute():
        candidate = root / candidate
    resolved = Path(os.path.realpath(candidate))
    if resolved != root and root not in resolved.parents:
        raise ToolError(
            f"path {raw!r} is outside the workdir {str(root)!r}; "
            "use a path inside the workdir (symlinks and '..' that leave it are refused)",
            error_type="path_outside_workdir",
        )
    return resolved


def display_path(workdir: Path, path: Path) -> str:
    """The path as the model should see it: relative to the workdir."""
    try:
        return path.relative_to(workdir.resolve()).as_posix() or "."
    except ValueError:
        return str(path)
