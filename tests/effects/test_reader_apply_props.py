"""Reader and apply agree: for any before and after tree, the changeset read from an
upper layer, applied to the before tree, gives the after tree (property test).

The upper layer is built as overlayfs builds it: changed and new entries copied
up, deleted ones as whiteouts (character devices 0/0, which need CAP_MKNOD, so
root), a folder made anew marked opaque (``user.overlay.opaque``).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.effects import apply_changeset, read_changeset
from harness.effects._files import line_counts

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="whiteouts need CAP_MKNOD (root)")

NAMES = st.sampled_from(["a", "b", "c.txt", "d"])
CONTENT = st.sampled_from(["", "x\n", "x\ny\n", "one\ntwo\nthree\n", "\x00bin"])
Tree = dict[str, object]  # name -> content (str) or a subtree (dict)
TREES: st.SearchStrategy[Tree] = st.recursive(
    st.dictionaries(NAMES, CONTENT, max_size=3),
    lambda children: st.dictionaries(NAMES, st.one_of(CONTENT, children), max_size=3),
    max_leaves=8,
)


def _write(root: Path, tree: Tree) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, value in tree.items():
        if isinstance(value, dict):
            _write(root / name, value)
        else:
            (root / name).write_text(str(value))


def _read(root: Path) -> Tree:
    found: Tree = {}
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            found[entry.name] = _read(Path(entry.path))
        else:
            found[entry.name] = Path(entry.path).read_text()
    return found


def _upper(upper: Path, before: Tree, after: Tree) -> None:
    """What overlayfs would leave in ``upper`` for a change from ``before`` to ``after``."""
    upper.mkdir(parents=True, exist_ok=True)
    for name in before.keys() - after.keys():
        os.mknod(upper / name, stat.S_IFCHR | 0o600, os.makedev(0, 0))
    for name, value in after.items():
        old = before.get(name)
        if isinstance(value, dict):
            if isinstance(old, dict):
                _upper(upper / name, old, value)
            else:
                _write(upper / name, value)
                if old is not None:  # a file replaced by a folder: a new, opaque folder
                    os.setxattr(upper / name, "user.overlay.opaque", b"y")
        elif value != old:
            (upper / name).write_text(str(value))


@settings(max_examples=25, deadline=None)
@given(before=TREES, after=TREES)
def test_apply_of_the_read_changeset_gives_the_after_tree(before: Tree, after: Tree) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work, upper = Path(tmp) / "work", Path(tmp) / "upper"
        _write(work, before)
        _upper(upper, before, after)
        changeset = read_changeset(upper, work)
        apply_changeset(changeset, work, upper)
        assert _read(work) == after
        shutil.rmtree(upper)


@given(st.lists(st.sampled_from(["a", "b", "c", ""]), max_size=12), st.data())
def test_line_counts_never_miss_a_removed_line(old_lines: list[str], data: st.DataObject) -> None:
    new_lines = data.draw(st.lists(st.sampled_from(["a", "b", "z"]), max_size=12))
    old = "".join(f"{line}\n" for line in old_lines).encode()
    new = "".join(f"{line}\n" for line in new_lines).encode()
    added, removed, binary = line_counts(old, new)
    assert not binary
    # Every old line is kept or counted removed; every new line is kept or counted added.
    kept = len(old_lines) - removed
    assert kept == len(new_lines) - added
    assert removed >= len(old_lines) - len(new_lines)
