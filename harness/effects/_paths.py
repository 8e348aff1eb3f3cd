"""Paths whose change needs a human: code a later human command or CI runs, and secrets.

The sensitive list (``effects.sensitive_paths``: environment files, lockfiles,
shell start-up files, credentials, paths naming a key or secret) plus the
project's list of files that run code later (``effects.codepaths``: CI,
direnv, build files, test and hook configuration, the scripts of a
``package.json``), and the folder ``core.hooksPath`` names. Paths inside a
``.git`` store are judged as a store by ``gitstore`` instead.
"""

from __future__ import annotations

import configparser
import json
import posixpath
from collections.abc import Callable
from pathlib import Path

from harness.effects._changeset import FileChange
from harness.effects._codepaths import DEFAULT_CODE_PATHS, CodePaths
from harness.effects._files import read_bytes_at
from harness.effects._gitstore import store_path

__all__ = ["AfterBytes", "hooks_paths", "sensitive_change_reason"]

AfterBytes = Callable[[str], bytes | None]


def sensitive_change_reason(
    change: FileChange,
    workdir: Path,
    hooks: tuple[str, ...],
    after: AfterBytes,
    code: CodePaths = DEFAULT_CODE_PATHS,
) -> str | None:
    """Why ``change`` needs a human because of where it is, or None.

    Args:
        change: the change.
        workdir: the real workdir (the before side).
        hooks: ``core.hooksPath`` folders (``hooks_paths``).
        after: reads a path's new bytes (from the layer, or a write's content).
        code: the project's files that run code later.
    """
    from harness.effects._sensitive_paths import sensitive_path_reason

    path = change.path
    if store_path(path) is not None:
        return None  # judged as a store (``gitstore``)
    for hook in hooks:
        if path == hook or path.startswith(hook.rstrip("/") + "/"):
            return f"git hooks folder (core.hooksPath = {hook})"
    if code.scripts_file(path) and _scripts_changed(change, workdir, after):
        return "package.json scripts (npm runs them)"
    return sensitive_path_reason(path, workdir, code)


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
