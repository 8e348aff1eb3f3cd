"""Which paths the risk policy treats as sensitive, and where a path really points.

A path is judged relative to the workdir (so a workdir under ``/home/keyboard``
does not make every file sensitive), both as written and with symlinks resolved.

Two kinds: secrets and state (environment files, credentials, lockfiles, shell
start-up files, paths naming a key or secret, ``.git`` internals), fixed; and
files whose content runs later without anyone reading it (CI, direnv, build
files, test and hook configuration), a project-configurable list of glob
patterns (``CodePaths``, ``HARNESS_SENSITIVE_PATHS``, ``.harness/sensitive-paths``).
"""

from __future__ import annotations

import os
import posixpath
from pathlib import Path

from harness.effects._codepaths import DEFAULT_CODE_PATHS, CodePaths

__all__ = ["inside", "resolve_path", "sensitive_path_reason"]

_LOCKFILES = frozenset(
    {"poetry.lock", "uv.lock", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
     "cargo.lock", "gemfile.lock", "go.sum", "pipfile.lock", "composer.lock"}
)  # fmt: skip
# Files a shell reads on start-up: whatever is written there runs in every later shell.
_CREDENTIALS = frozenset(
    {".netrc", ".npmrc", ".pypirc", ".git-credentials", ".dockercfg", "credentials",
     "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".htpasswd"}
)  # fmt: skip
_CREDENTIAL_SUFFIXES = (".pem", ".p12", ".pfx", ".jks", ".keystore", ".kdbx")
_SHELL_STARTUP = frozenset(
    {".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile",
     ".bash_logout", ".inputrc"}
)  # fmt: skip


def sensitive_path_reason(
    path: str, workdir: Path | None = None, code: CodePaths = DEFAULT_CODE_PATHS
) -> str | None:
    """Why writing ``path`` is sensitive, or None when it is not.

    Paths are judged relative to ``workdir`` (so a workdir that happens to live
    under ``/home/keyboard`` does not make every file sensitive), both as
    written and, when a workdir is given, with symlinks resolved. ``code`` is
    the project's list of files that run code later.
    """
    for parts in _path_variants(path, workdir):
        reason = _parts_reason(parts)
        if reason is None and parts:
            reason = code.reason("/".join(parts))
        if reason is not None:
            return reason
    return None


def resolve_path(path: str, cwd: str) -> tuple[str, ...]:
    """``path`` made absolute against ``cwd``: as written and with symlinks resolved."""
    joined = posixpath.normpath(posixpath.join(cwd, path.replace("\\", "/")))
    try:
        real = os.path.realpath(joined)
    except (OSError, ValueError):
        return (joined,)
    return (joined,) if real == joined else (joined, real)


def inside(path: str, root: str) -> bool:
    """Whether absolute ``path`` is ``root`` or lies under it."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def _path_variants(path: str, workdir: Path | None) -> list[tuple[str, ...]]:
    text = path.replace("\\", "/")
    if workdir is None:
        return [_parts(text)]
    root = posixpath.normpath(workdir.as_posix())
    variants = [_relative_to(posixpath.normpath(posixpath.join(root, text)), root)]
    try:
        real_root = os.path.realpath(root)
        real = os.path.realpath(posixpath.join(real_root, text))
    except (OSError, ValueError):
        return [_parts(v) for v in variants]  # e.g. a NUL byte: the tool refuses it anyway
    variants.append(_relative_to(real, real_root))
    return [_parts(v) for v in variants]


def _relative_to(path: str, root: str) -> str:
    if inside(path, root):
        return posixpath.relpath(path, root)
    return path


def _parts(path: str) -> tuple[str, ...]:
    return tuple(p for p in posixpath.normpath(path).lower().split("/") if p not in ("", "."))


def _parts_reason(parts: tuple[str, ...]) -> str | None:
    if not parts:
        return None
    base = parts[-1]
    for part in parts:
        if part.startswith(".env"):
            return "environment file"
    if base in _LOCKFILES:
        return "dependency lockfile"
    if ".git" in parts[:-1]:
        return "git internals (config and hooks run code on later git commands)"
    if base == ".git":
        return "a .git file or link (gitdir: points git at another store)"
    if base in _SHELL_STARTUP:
        return "shell start-up file"
    if parts[0] == ".harness":
        # The default state dir's place: what lands there a later default run reads as
        # its own history (sessions, approvals), though this run's state is elsewhere.
        return "harness state folder (.harness)"
    for word in ("secret", "key"):
        if any(word in part for part in parts):
            return f"path contains {word!r}"
    if base in _CREDENTIALS or base.endswith(_CREDENTIAL_SUFFIXES):
        return "credentials file"
    return None
