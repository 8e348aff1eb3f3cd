"""The directories bash must never see: the harness state dir and the approval key.

The state dir holds pending approvals and checkpoints; the approval-key dir
(``$XDG_STATE_HOME/harness``, default ``~/.local/state/harness``) holds the
HMAC key that signs them. An agent that reads the key can forge an approval;
one that writes into either can plant records or a key of its own choosing.

A hidden dir that does not exist yet but lies inside the workdir is created
(empty, mode 0700) before the sandbox starts, so the tmpfs covers it and the
agent cannot create it first. One outside the workdir that does not exist needs
no cover: everything outside the workdir is read-only in the sandbox.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from harness.core.errors import ToolError

__all__ = ["approval_key_dir", "existing_hidden_dirs"]


def approval_key_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/harness``, or ``~/.local/state/harness`` when it is unset."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_STATE_HOME", "").strip()
    root = Path(base) if base and Path(base).is_absolute() else Path.home() / ".local" / "state"
    return root / "harness"


def existing_hidden_dirs(paths: Iterable[Path], workdir: Path) -> list[Path]:
    """The resolved directories to cover, creating those that belong inside ``workdir``.

    Raises:
        ToolError: a hidden dir inside the workdir is missing and cannot be made,
            or is not a directory; running anyway would expose it.
    """
    found: list[Path] = []
    for path in paths:
        resolved = path.expanduser().resolve()
        if not resolved.exists() and resolved.is_relative_to(workdir):
            try:
                resolved.mkdir(mode=0o700, parents=True)
            except FileExistsError:
                pass  # made meanwhile by harness itself; checked just below
            except OSError as exc:
                raise ToolError(
                    f"cannot create {str(resolved)!r} to hide it from bash: {exc}",
                    error_type="sandbox_unavailable",
                ) from exc
        if resolved.is_dir():
            found.append(resolved)
        elif resolved.exists() and resolved.is_relative_to(workdir):
            raise ToolError(
                f"{str(resolved)!r} must be a directory (harness state); it is not, so bash "
                "could read it. Remove it or set HARNESS_STATE_DIR elsewhere.",
                error_type="sandbox_unavailable",
            )
    return found
