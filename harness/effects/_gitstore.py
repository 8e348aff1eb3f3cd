"""A ``.git`` folder judged as a store: what a change inside it may do without a human.

Git only ever adds to its store: a commit writes new objects, appends to the
reflogs and moves a branch forward. What destroys information, or makes a
later git command run code or read another store, needs a human:

* rewriting or deleting objects and packs (a truncated pack too), reflogs
  (``logs/``), submodule stores (``modules/``), ``lfs/`` or ``shallow``;
  derived caches (commit-graph, multi-pack-index, bitmaps, ``info/packs``) are
  rebuilt by git and may change freely;
* any change to ``config``, ``commondir``, ``gitdir``, ``hooks/``, ``info/``
  or ``objects/info/alternates``, in any ``.git`` folder of the tree (nested
  repositories, ``modules/``), and a ``.git`` that is a file or a link
  (``gitdir:``), which points git at another store;
* moving a worktree file into a store: there it is out of the worktree's
  rules, and the next call could delete it as store housekeeping;
* changing a file the policy does not know in a store (created is fine).

Refs (``HEAD``, ``refs/``, ``packed-refs``) are judged by ``gitrefs`` (forward
or not) and the index by ``gitindex`` (staged content kept or not).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from harness.effects._changeset import FileChange
from harness.effects._loss import lost_bytes

__all__ = ["StorePath", "git_store_reasons", "store_path"]

# Changed by every git command or rebuilt from the objects: nothing is lost.
_TRANSIENT = frozenset(
    {"orig_head", "fetch_head", "merge_head", "cherry_pick_head", "revert_head", "auto_merge",
     "merge_msg", "merge_mode", "squash_msg", "commit_editmsg", "tag_editmsg", "description",
     "gc.log", "gc.pid", "bisect_log", "bisect_start", "bisect_terms", "bisect_names",
     "bisect_expected_rev", "bisect_ancestors_ok", "next-index", "fsmonitor--daemon.ipc"}
)  # fmt: skip
_TRANSIENT_DIRS = frozenset({"rebase-merge", "rebase-apply", "sequencer", "rr-cache"})
_REDIRECTS = frozenset({"config", "config.worktree", "commondir", "gitdir"})
_DERIVED_OBJECTS = ("info/packs", "info/commit-graph", "info/commit-graphs/")
_DERIVED_PACK_SUFFIXES = (".bitmap", ".rev", ".mtimes")
_STORES = ("modules", "lfs")

Reader = Callable[[str], bytes | None]


@dataclass(frozen=True, slots=True)
class StorePath:
    """A path inside a ``.git`` store: the store (``sub/.git``) and the rest (``objects/ab``)."""

    git_dir: str
    inner: str


def store_path(path: str) -> StorePath | None:
    """Where ``path`` lies in a ``.git`` store, or None when it is in no store.

    The outermost ``.git`` component names the store, so ``.git/modules/x/...``
    belongs to the top store (``modules/`` is judged as a whole). Matched
    without regard to case: a store the file system shows as ``.GIT`` is one.
    """
    parts = path.split("/")
    for index, part in enumerate(parts):
        if part.lower() == ".git":
            return StorePath("/".join(parts[: index + 1]), "/".join(parts[index + 1 :]))
    return None


def git_store_reasons(change: FileChange, before: Reader, after: Reader) -> list[str]:
    """Why ``change`` (a path with a ``.git`` component) needs a human; empty: it may apply.

    Args:
        before: reads a path's old bytes (the real workdir).
        after: reads a path's new bytes (the layer, or a write's content).
    """
    where = store_path(change.path)
    if where is None:
        return []
    path = change.path
    if not where.inner:
        if any(s is not None and s.kind != "dir" for s in (change.before, change.after)):
            return [f"{path} is a .git file or link (gitdir: points git at another store)"]
        return []
    if change.renamed_from is not None and store_path(change.renamed_from) is None:
        return [f"moves {change.renamed_from} into the git store as {path} (out of the worktree)"]
    inner = where.inner.lower()
    parts = inner.split("/")
    head, base = parts[0], parts[-1]
    if head in ("hooks", "info") or (
        head not in ("refs", "logs", "objects")
        and (base in _REDIRECTS or "hooks" in parts or "info" in parts[:-1])
    ):
        return [f"changes {path} (git config, hooks or a store pointer run code or redirect git)"]
    if inner.endswith(("objects/info/alternates", "objects/info/http-alternates")):
        return [f"changes {path} (points git at another object store)"]
    old_file = change.before is not None and change.before.kind == "file"
    if head == "refs" and old_file and not _ref_text(before(path)):
        return [f"changes {path}, a file in refs/ that holds no ref"]
    if head in ("refs", "packed-refs", "head", "index") or _transient(parts):
        return []  # refs: ``gitrefs``; the index: ``gitindex``
    was_dir = change.before is not None and change.before.kind == "dir"
    if was_dir and (change.after is None or change.after.kind == "dir"):
        return []  # a folder's files are changes of their own
    if head == "shallow":
        return [f"changes {path} (the shallow list hides history)"]
    if change.before is None:
        return []  # new objects, packs, reflogs, module stores: git adds, nothing lost
    if head == "objects" and _derived(inner):
        return []
    if head == "logs" and change.after is not None:
        old, new = before(path), after(path)
        if old is not None and new is not None and lost_bytes(old, new, len(old)) == 0:
            return []  # appended to
        return [f"rewrites reflog {path}"]
    what = _store_part(head)
    verb = "deletes" if change.after is None else "rewrites"
    return [f"{verb} {what} {path}"]


def _ref_text(data: bytes | None) -> bool:
    """Whether a loose ref file holds a ref (a hash or ``ref: NAME``), as git writes one."""
    if data is None or len(data) > 4096:
        return False
    text = data.decode("utf-8", "replace").strip()
    hexdigits = all(ch in "0123456789abcdef" for ch in text)
    return (len(text) in (40, 64) and hexdigits) or text.startswith("ref: ")


def _transient(parts: list[str]) -> bool:
    if parts[0] in _TRANSIENT_DIRS:
        return True
    return len(parts) == 1 and (parts[0] in _TRANSIENT or parts[0].endswith(".lock"))


def _derived(inner: str) -> bool:
    rest = inner.removeprefix("objects/")
    if rest.startswith(_DERIVED_OBJECTS):
        return True
    return rest.startswith("pack/") and (
        rest.endswith(_DERIVED_PACK_SUFFIXES) or "multi-pack-index" in rest
    )


def _store_part(head: str) -> str:
    if head == "objects":
        return "git object file"
    if head == "logs":
        return "reflog"
    if head in _STORES:
        return f"git {head} store file"
    return "git store file"
