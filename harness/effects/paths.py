"""Paths whose change needs a human: code a later human command or CI runs, and secrets.

The existing sensitive list (``effects.sensitive_paths``: environment files,
lockfiles, CI config, shell start-up files, credentials, paths naming a key or
secret) plus what runs code later without anyone reading it: git's config and
hooks (and the folder ``core.hooksPath`` names), Makefiles, ``conftest.py``,
``setup.py``, Python start-up files, and the scripts of a ``package.json``.
Inside ``.git`` only those count: objects, the index and refs change with every
``git commit`` (refs are judged by reachability instead, see ``gitrefs``).
"""

from __future__ import annotations

import configparser
import json
import posixpath
from collections.abc import Callable
from pathlib import Path

from harness.effects.changeset import FileChange
from harness.effects.files import read_bytes_at

__all__ = ["AfterBytes", "hooks_paths", "sensitive_change_reason"]

AfterBytes = Callable[[str], bytes | None]

_RUNS_CODE = {
    "makefile": "Makefile (make runs it)",
    "gnumakefile": "Makefile (make runs it)",
    "conftest.py": "pytest conftest.py (pytest runs it)",
    "setup.py": "setup.py (packaging runs it)",
    "noxfile.py": "noxfile.py (nox runs it)",
    "tox.ini": "tox.ini (tox runs its commands)",
    "justfile": "justfile (just runs it)",
    "sitecustomize.py": "Python start-up file",
    "usercustomize.py": "Python start-up file",
}


def sensitive_change_reason(
    change: FileChange, workdir: Path, hooks: tuple[str, ...], after: AfterBytes
) -> str | None:
    """Why ``change`` needs a human because of where it is, or None.

    Args:
        change: the change.
        workdir: the real workdir (the before side).
        hooks: ``core.hooksPath`` folders (``hooks_paths``).
        after: reads a path's new bytes (from the layer, or a write's content).
    """
    from harness.effects.sensitive_paths import sensitive_path_reason

    path = change.path
    lower = path.lower()
    parts = lower.split("/")
    if parts[0] == ".git" or "/.git/" in f"/{lower}":
        return _git_reason(parts)
    for hook in hooks:
        if path == hook or path.startswith(hook.rstrip("/") + "/"):
            return f"git hooks folder (core.hooksPath = {hook})"
    base = parts[-1]
    if base in _RUNS_CODE:
        return _RUNS_CODE[base]
    if base.endswith(".mk"):
        return "Makefile include (make runs it)"
    if base.endswith(".pth"):
        return "Python .pth file (runs at every Python start)"
    if base == "package.json" and _scripts_changed(change, workdir, after):
        return "package.json scripts (npm runs them)"
    return sensitive_path_reason(path, workdir)


def _git_reason(parts: list[str]) -> str | None:
    inner = parts[parts.index(".git") + 1 :]
    if not inner:
        return "the .git folder itself"
    if inner[0] in ("config", "config.worktree", "hooks", "info") or "hooks" in inner:
        return "git config or hooks (run code on a later git command)"
    if inner[0] == "modules" and inner[-1] in ("config", "config.worktree"):
        return "git config of a submodule"
    return None


def hooks_paths(workdir: Path, upper: Path | None) -> tuple[str, ...]:
    """Relative ``core.hooksPath`` folders inside the workdir, before and after the call."""
    found: list[str] = []
    for base in (workdir, upper):
        if base is None:
            continue
        data = read_bytes_at(base, ".git/config", 1 << 20)
        if not data:
            continue
        parser = configparser.RawConfigParser(strict=False)
        try:
            parser.read_string(data.decode("utf-8", "replace"))
        except configparser.Error:
            continue
        for section in parser.sections():
            if section.strip().lower() == "core":
                value = parser.get(section, "hookspath", fallback=None)
                if value:
                    rel = posixpath.normpath(value.strip().strip('"'))
                    if rel.startswith(str(workdir) + "/"):
                        rel = rel[len(str(workdir)) + 1 :]
                    if not rel.startswith("/") and not rel.startswith(".."):
                        found.append(rel)
    return tuple(dict.fromkeys(found))


def _scripts_changed(change: FileChange, workdir: Path, after: AfterBytes) -> bool:
    before = _scripts(read_bytes_at(workdir, change.path, 1 << 20)) if change.before else None
    new = _scripts(after(change.path)) if change.after else None
    return new != before


def _scripts(data: bytes | None) -> object:
    if data is None:
        return None
    try:
        loaded = json.loads(data)
    except ValueError:
        return "unreadable"  # a package.json npm cannot read: judged as changed
    return loaded.get("scripts") if isinstance(loaded, dict) else None
