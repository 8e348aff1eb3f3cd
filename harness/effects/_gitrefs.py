"""Did a change move a git ref anywhere but forward? Refs before and after, compared.

A ref that moves forward (``git commit``, a fast-forward merge: the old commit
is an ancestor of the new one) loses nothing; a new ref loses nothing. A ref
that is deleted (``git branch -D``, ``git stash drop``) or moved anywhere else
(``git reset``, ``git update-ref``, rewriting ``packed-refs``) loses a name and
maybe commits, so it needs a human, whether or not another ref still reaches
those commits. Ancestry is asked of git (``merge-base --is-ancestor``) with the
layer's new objects visible as an alternate object dir; when git cannot
answer, the move counts as backward (fails closed). A detached ``HEAD`` that
moves is judged by reachability: fine when its old commit is still reachable
from some ref. Every ``.git`` store in the tree is judged, nested ones too.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

from harness.effects._changeset import Changeset, FileChange

__all__ = ["moved_ref_reasons", "ref_stores", "touches_refs"]

_TIMEOUT = 20.0

Reader = Callable[[str], bytes | None]


def touches_refs(changeset: Changeset) -> bool:
    return bool(ref_stores(changeset))


def ref_stores(changeset: Changeset) -> list[str]:
    """The ``.git`` folders (relative to the workdir) whose refs the changeset touches."""
    found: dict[str, None] = {}
    for change in changeset.changes:
        store = _ref_store(change.path)
        if store is not None:
            found[store] = None
    return list(found)


def moved_ref_reasons(
    changeset: Changeset, workdir: Path, after: Reader, objects: Callable[[str], Path | None]
) -> list[str]:
    """Why the changeset's ref moves need a human, over every store it touches.

    Args:
        after: reads a workdir-relative path's new bytes.
        objects: the layer's new objects folder of a store, if any.
    """
    reasons: list[str] = []
    for store in ref_stores(changeset):
        # A slash-named branch (refs/heads/a/b) makes or removes folders under refs/:
        # those are no refs, only the files below them are.
        touched = {
            c.path for c in changeset.changes if _ref_store(c.path) == store and not _is_folder(c)
        }
        reasons += _store_reasons(store, touched, workdir, after, objects(store))
    return reasons


def _store_reasons(
    store: str, touched: set[str], workdir: Path, after: Reader, objects: Path | None
) -> list[str]:
    reasons = []
    for name, how in _moved(store, touched, workdir, after, objects):
        where = name if store == ".git" else f"{name} of {store}"
        if name == "HEAD":
            reasons.append(f"moves detached {where} so that commits are no longer reachable")
        elif how == "deleted":
            reasons.append(f"deletes git ref {where}")
        else:
            reasons.append(f"moves git ref {where} backward (not a fast-forward)")
    return reasons


def _moved(
    store: str, touched: set[str], workdir: Path, after: Reader, objects: Path | None
) -> list[tuple[str, str]]:
    git_dir = workdir / store
    if not git_dir.is_dir():
        return []  # a new store: nothing was there to lose
    prefix = store + "/"
    extra = {p.removeprefix(prefix) for p in touched if p.startswith(prefix + "refs/")}

    def now(rel: str) -> bytes | None:
        full = prefix + rel
        return _quiet(after, full) if full in touched else _read(workdir / full)

    before = _all_refs(lambda rel: _read(git_dir / rel), git_dir, extra)
    current = _all_refs(now, git_dir, extra)
    git = _Git(git_dir, objects)
    moved: list[tuple[str, str]] = []
    for name, old in sorted(before.items()):
        new = current.get(name)
        if new == old:
            continue
        if name == "HEAD":
            if not git.reachable(old, sorted(set(current.values()))):
                moved.append((name, "moves"))
        elif new is None:
            moved.append((name, "deleted"))
        elif not git.is_ancestor(old, new):
            moved.append((name, "backward"))
    return moved


class _Git:
    """Asks one store about ancestry, with the layer's new objects visible."""

    def __init__(self, git_dir: Path, objects: Path | None) -> None:
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_DIR": str(git_dir),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": os.devnull,
        }
        if objects is not None and objects.is_dir():
            self.env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(objects)

    def _run(self, *argv: str) -> subprocess.CompletedProcess[bytes] | None:
        try:
            return subprocess.run(
                ["git", *argv], env=self.env, capture_output=True, timeout=_TIMEOUT,
                stdin=subprocess.DEVNULL,
            )  # fmt: skip
        except (OSError, subprocess.SubprocessError):
            return None

    def is_ancestor(self, old: str, new: str) -> bool:
        done = self._run("merge-base", "--is-ancestor", old, new)
        return done is not None and done.returncode == 0

    def reachable(self, old: str, tips: list[str]) -> bool:
        if not tips:
            return False
        done = self._run("rev-list", "--max-count=1", old, "--not", *tips)
        return done is not None and done.returncode == 0 and not done.stdout.strip()


def _ref_store(path: str) -> str | None:
    """The store whose ref ``path`` is (``HEAD``, ``packed-refs``, ``refs/...``), or None."""
    parts = path.split("/")
    for index, part in enumerate(parts):
        if part.lower() != ".git":
            continue
        rest = parts[index + 1 :]
        if rest in (["HEAD"], ["packed-refs"]) or (len(rest) > 1 and rest[0] == "refs"):
            return "/".join(parts[: index + 1])
        return None
    return None


def _is_folder(change: FileChange) -> bool:
    state = change.after or change.before
    return state is not None and state.kind == "dir"


def _quiet(read: Callable[[str], bytes | None], rel: str) -> bytes | None:
    """A ref's bytes, None when it cannot be read (a folder, a name gone meanwhile)."""
    try:
        return read(rel)
    except OSError:
        return None


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 22)
    except OSError:  # missing, or a folder of slash-named refs
        return None


def _all_refs(read: Reader, git_dir: Path, extra: set[str]) -> dict[str, str]:
    refs: dict[str, str] = {}
    packed = read("packed-refs") or b""
    for line in packed.decode("utf-8", "replace").splitlines():
        sha, _, name = line.partition(" ")
        if _is_sha(sha) and name.startswith("refs/"):
            refs[name] = sha
    names = {"HEAD", *extra}
    for root, _, files in os.walk(git_dir / "refs"):
        for file in files:
            names.add(os.path.relpath(os.path.join(root, file), git_dir))
    for name in sorted(names):
        value = (read(name) or b"").decode("utf-8", "replace").strip()
        if _is_sha(value):
            refs[name] = value
        # A symbolic ref (HEAD -> a branch) is judged by its branch; a loose ref
        # that is gone leaves its packed value, as git reads it.
    return refs


def _is_sha(value: str) -> bool:
    return len(value) == 40 and all(ch in "0123456789abcdef" for ch in value)
