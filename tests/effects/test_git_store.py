"""The ``.git`` store table: which changes inside a store apply and which ask, path by path."""

from __future__ import annotations

import pytest

from harness.effects._changeset import FileChange, FileState
from harness.effects._gitstore import git_store_reasons

OLD = FileState(kind="file", mode=0o644, size=4, sha256="0" * 64)
NEW = FileState(kind="file", mode=0o644, size=8, sha256="1" * 64)
DIR = FileState(kind="dir", mode=0o755)
LINK = FileState(kind="symlink", mode=0o777, size=4, sha256="2" * 64, target="/tmp")
CONTENT = {"old": b"abc\n", "appended": b"abc\ndef\n", "rewritten": b"xyz\n"}

# (path, before, after, new bytes, asks)
TABLE = [
    (".git/objects/ab/cdef", None, NEW, "rewritten", False),
    (".git/objects/ab/cdef", OLD, NEW, "rewritten", True),
    (".git/objects/ab/cdef", OLD, None, None, True),
    (".git/objects/pack/pack-1.pack", OLD, NEW, "rewritten", True),  # truncated or rewritten
    (".git/objects/pack/pack-1.idx", OLD, None, None, True),
    (".git/objects/pack/pack-1.bitmap", OLD, None, None, False),  # derived, rebuilt by git
    (".git/objects/info/commit-graph", OLD, NEW, "rewritten", False),
    (".git/objects/info/alternates", None, NEW, "rewritten", True),
    (".git/logs/HEAD", OLD, NEW, "appended", False),
    (".git/logs/HEAD", OLD, NEW, "rewritten", True),
    (".git/logs/refs/heads/x", OLD, None, None, True),
    (".git/logs/refs/heads/new", None, NEW, "rewritten", False),
    (".git/modules/sub/objects/ab/cd", None, NEW, "rewritten", False),
    (".git/modules/sub/HEAD", OLD, NEW, "rewritten", True),
    (".git/modules/sub/config", None, NEW, "rewritten", True),
    (".git/modules/sub/info/exclude", None, NEW, "rewritten", True),
    (".git/lfs/objects/ab/cd/abcd", None, NEW, "rewritten", False),
    (".git/lfs/objects/ab/cd/abcd", OLD, None, None, True),
    (".git/shallow", None, NEW, "rewritten", True),
    (".git/config", OLD, NEW, "rewritten", True),
    (".git/commondir", None, NEW, "rewritten", True),
    (".git/worktrees/w/gitdir", OLD, NEW, "rewritten", True),
    (".git/hooks/pre-commit", None, NEW, "rewritten", True),
    (".git/info/attributes", None, NEW, "rewritten", True),
    ("sub/.git/config", OLD, NEW, "rewritten", True),
    ("a/b/.GIT/hooks/post-checkout", None, NEW, "rewritten", True),
    ("vendor/.git", None, NEW, "rewritten", True),  # a gitdir: file
    ("vendor/.git", None, LINK, None, True),
    ("vendor/.git", None, DIR, None, False),  # a new nested repository
    (".git/ORIG_HEAD", OLD, NEW, "rewritten", False),
    (".git/COMMIT_EDITMSG", OLD, None, None, False),
    (".git/rebase-merge/done", OLD, None, None, False),
    (".git/index.lock", None, NEW, "rewritten", False),
    (".git/x", None, NEW, "rewritten", False),  # new: nothing lost
    (".git/x", OLD, None, None, True),  # unknown to the policy: its loss asks
    (".git/objects/ab", DIR, None, None, False),  # its files are judged one by one
    (".git/refs/notes.ini", OLD, None, None, True),  # holds no ref
    (".git/refs/heads/main", OLD, NEW, "rewritten", False),  # refs: judged by gitrefs
]


@pytest.mark.parametrize(
    ("path", "before", "after", "new", "asks"),
    TABLE,
    ids=[f"{row[0]}:{'+' if row[1] is None else '-' if row[2] is None else '~'}" for row in TABLE],
)
def test_the_store_table(
    path: str, before: FileState | None, after: FileState | None, new: str | None, asks: bool
) -> None:
    kind = "created" if before is None else "deleted" if after is None else "modified"
    change = FileChange(path=path, change=kind, before=before, after=after)
    old_bytes = b"0" * 40 + b"\n" if path == ".git/refs/heads/main" else CONTENT["old"]

    reasons = git_store_reasons(
        change, lambda _: old_bytes, lambda _: CONTENT[new] if new else None
    )

    assert bool(reasons) is asks, reasons


def test_a_worktree_file_moved_into_a_store_asks() -> None:
    change = FileChange(
        path="sub/.git/stash.ini", change="renamed", before=None, after=NEW, renamed_from="a.ini"
    )

    assert git_store_reasons(change, lambda _: None, lambda _: b"x") == [
        "moves a.ini into the git store as sub/.git/stash.ini (out of the worktree)"
    ]
