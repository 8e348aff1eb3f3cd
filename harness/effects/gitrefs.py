"""Did a change make commits unreachable? Git refs before and after, compared.

A ref that moves forward (``git commit``, a fast-forward merge) keeps every
commit it had. One that is deleted or moved elsewhere (``git reset``,
``git update-ref``, ``git branch -D``, rewriting ``packed-refs``) may orphan
commits: ``git rev-list OLD... --not NEW...`` lists them, with the layer's
new objects made visible as an alternate object dir. When git cannot answer,
the change counts as losing commits (fails closed).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from harness.effects.changeset import Changeset, FileChange

__all__ = ["lost_commit_refs", "touches_refs"]

_TIMEOUT = 20.0


def touches_refs(changeset: Changeset) -> bool:
    return any(_is_ref(change.path) for change in changeset.changes)


def lost_commit_refs(
    changeset: Changeset, workdir: Path, after: Callable[[str], bytes | None], objects: Path | None
) -> list[str]:
    """Refs whose old commits are no longer reachable from any ref after the change."""
    git_dir = workdir / ".git"
    if not git_dir.is_dir():
        return []
    # A slash-named branch (refs/heads/a/b) makes or removes folders under refs/:
    # those are no refs, only the files below them are.
    changed = [c for c in changeset.changes if _is_ref(c.path) and not _is_folder(c)]
    touched = {c.path for c in changed}
    extra = {path.removeprefix(".git/") for path in touched if path.startswith(".git/refs/")}
    before = _all_refs(lambda rel: _read(workdir / rel), git_dir, extra)
    now = _all_refs(
        lambda rel: _quiet(after, rel) if rel in touched else _read(workdir / rel), git_dir, extra
    )
    olds = {name: sha for name, sha in before.items() if now.get(name) != sha}
    if not olds:
        return []
    if "packed-refs" not in touched and not any(_ref_file(n) in touched for n in olds):
        return []
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_DIR": str(git_dir),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "HOME": os.devnull,
    }
    if objects is not None and objects.is_dir():
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(objects)
    tips = sorted(set(now.values()))
    argv = ["git", "rev-list", "--max-count=1", *sorted(set(olds.values())), "--not", *tips]
    try:
        done = subprocess.run(
            argv, env=env, capture_output=True, timeout=_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError):
        return sorted(olds)
    if done.returncode != 0 or done.stdout.strip():
        return sorted(olds)
    return []


def _is_ref(path: str) -> bool:
    return path == ".git/packed-refs" or path == ".git/HEAD" or path.startswith(".git/refs/")


def _is_folder(change: FileChange) -> bool:
    state = change.after or change.before
    return state is not None and state.kind == "dir"


def _quiet(read: Callable[[str], bytes | None], rel: str) -> bytes | None:
    """A ref's bytes, None when it cannot be read (a folder, a name gone meanwhile)."""
    try:
        return read(rel)
    except OSError:
        return None


def _ref_file(name: str) -> str:
    return f".git/{name}"


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 22)
    except OSError:  # missing, or a folder of slash-named refs
        return None


def _all_refs(
    read: Callable[[str], bytes | None], git_dir: Path, extra: set[str]
) -> dict[str, str]:
    refs: dict[str, str] = {}
    packed = read(".git/packed-refs") or b""
    for line in packed.decode("utf-8", "replace").splitlines():
        sha, _, name = line.partition(" ")
        if len(sha) == 40 and name.startswith("refs/"):
            refs[name] = sha
    names = {"HEAD", *extra}
    refs_dir = git_dir / "refs"
    for root, _, files in os.walk(refs_dir):
        for file in files:
            names.add(os.path.relpath(os.path.join(root, file), git_dir))
    for name in sorted(names):
        value = (read(f".git/{name}") or b"").decode("utf-8", "replace").strip()
        if len(value) == 40 and all(ch in "0123456789abcdef" for ch in value):
            refs[name] = value
        # A symbolic ref (HEAD -> a branch) is judged by its branch; a loose ref
        # that is gone leaves its packed value, as git reads it.
    return refs
