"""Did a change drop staged content? A git index before and after, compared.

The index is rewritten by nearly every git command (``git status`` refreshes
its stat data, ``git add`` stages new content): those lose nothing. What is
lost is a staged blob that neither the new index nor a commit holds any more
(``git restore --staged``, ``git rm --cached``, ``git reset`` over staged
work, staging a newer version over an older one): its bytes survive only as a
dangling object that ``git gc`` prunes. So the blobs of the old index that
the new one lacks are looked up in the trees of ``HEAD`` before and after;
any left over, an index that cannot be read, or a git that cannot answer,
needs a human.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

__all__ = ["index_hashes", "staged_content_lost"]

_TIMEOUT = 20.0
_HEADER = 12
_FIXED = 62  # ten 32-bit stat fields, a 20-byte hash, 16-bit flags (SHA-1 stores)


def index_hashes(data: bytes) -> frozenset[str] | None:
    """The blob (and gitlink) hashes an index file stages; None when it cannot be read.

    Understands index versions 2, 3 and 4 of SHA-1 repositories.
    """
    if len(data) < _HEADER or data[:4] != b"DIRC":
        return None
    version = int.from_bytes(data[4:8], "big")
    count = int.from_bytes(data[8:12], "big")
    if version not in (2, 3, 4):
        return None
    found: set[str] = set()
    offset = _HEADER
    for _ in range(count):
        if offset + _FIXED > len(data):
            return None
        found.add(data[offset + 40 : offset + 60].hex())
        flags = int.from_bytes(data[offset + 60 : offset + 62], "big")
        start = offset + _FIXED + (2 if version >= 3 and flags & 0x4000 else 0)
        if version == 4:
            start = _skip_varint(data, start)
            if start < 0:
                return None
        end = data.find(b"\0", start)
        if end < 0:
            return None
        if version == 4:
            offset = end + 1
        else:
            offset += ((end - offset) // 8 + 1) * 8  # NUL-padded to a multiple of eight
    return frozenset(found)


def _skip_varint(data: bytes, offset: int) -> int:
    while offset < len(data):
        if not data[offset] & 0x80:
            return offset + 1
        offset += 1
    return -1


def staged_content_lost(
    git_dir: Path, old: bytes | None, new: bytes | None, read_after: Callable[[str], bytes | None],
    objects: Path | None,
) -> str | None:  # fmt: skip
    """Why the index change from ``old`` to ``new`` loses staged content, or None.

    Args:
        git_dir: the real store (its objects and its ``HEAD`` before).
        old: the index before (None: there was none, nothing to lose).
        new: the index after (None: deleted or unreadable).
        read_after: reads a store-relative path after the change (``HEAD``, refs).
        objects: the layer's new objects, if any.
    """
    if old is None:
        return None
    before = index_hashes(old)
    if before is None:
        return "rewrites a git index the policy cannot read"
    after = index_hashes(new) if new is not None else frozenset()
    if after is None:
        return "writes a git index the policy cannot read"
    missing = before - after
    if not missing:
        return None
    heads = [_head(lambda rel: _read(git_dir / rel), git_dir), _head(read_after, git_dir)]
    for commit in {h for h in heads if h is not None}:
        held = _tree_hashes(git_dir, commit, objects)
        if held is None:
            return "rewrites the git index and git cannot say what HEAD holds"
        missing -= held
        if not missing:
            return None
    return f"drops staged content from the git index ({len(missing)} blob(s) in no commit)"


def _head(read: Callable[[str], bytes | None], git_dir: Path) -> str | None:
    """The commit ``HEAD`` names, following one symbolic level (and packed refs)."""
    value = (read("HEAD") or b"").decode("utf-8", "replace").strip()
    if value.startswith("ref:"):
        name = value[4:].strip()
        target = (read(name) or b"").decode("utf-8", "replace").strip()
        if not _is_sha(target):
            packed = (read("packed-refs") or b"").decode("utf-8", "replace")
            target = next(
                (ln.split(" ")[0] for ln in packed.splitlines() if ln.endswith(" " + name)), ""
            )
        value = target
    return value if _is_sha(value) else None


def _tree_hashes(git_dir: Path, commit: str, objects: Path | None) -> frozenset[str] | None:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "GIT_DIR": str(git_dir),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "HOME": os.devnull,
    }
    if objects is not None and objects.is_dir():
        env["GIT_ALTERNATE_OBJECT_DIRECTORIES"] = str(objects)
    try:
        done = subprocess.run(
            ["git", "ls-tree", "-r", "--format=%(objectname)", commit],
            env=env, capture_output=True, timeout=_TIMEOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return frozenset(done.stdout.decode("ascii", "replace").split())


def _is_sha(value: str) -> bool:
    return len(value) == 40 and all(ch in "0123456789abcdef" for ch in value)


def _read(path: Path) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(1 << 22)
    except OSError:
        return None
