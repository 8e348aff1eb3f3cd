"""Properties of the journal: undo after apply gives back the tree before, for any change;
any file name survives the JSON of a changeset and of a journal entry; the
sparse copy and hash see the bytes a plain read sees.

The upper layer is built as overlayfs builds it (``test_reader_apply_props``);
whiteouts need CAP_MKNOD, so the tree property runs as root only.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.effects import Changeset, FileChange, apply_changeset, read_changeset
from harness.effects._journal import JournalEntry, JournalOrigin, JournalStore, UndoJournal
from harness.effects._journal_budget import copy_sparse, sparse_sha256
from harness.effects._journal_undo import undo_entries
from tests.effects.test_reader_apply_props import TREES, Tree, _read, _upper, _write

NAMES = st.binary(min_size=1, max_size=40).filter(
    lambda name: b"/" not in name and b"\0" not in name and name not in (b".", b"..")
)


@pytest.mark.skipif(os.geteuid() != 0, reason="whiteouts need CAP_MKNOD (root)")
@settings(max_examples=25, deadline=None)
@given(before=TREES, after=TREES)
def test_undo_of_an_applied_change_gives_the_tree_before(before: Tree, after: Tree) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work, upper, state = Path(tmp) / "work", Path(tmp) / "upper", Path(tmp) / "state"
        _write(work, before)
        _upper(upper, before, after)
        changeset = read_changeset(upper, work)
        journal = UndoJournal(state, JournalOrigin(run="r", call="c", tool="bash"))
        apply_changeset(changeset, work, upper, journal=journal)
        assert _read(work) == after
        store = JournalStore(state)
        undo_entries(store, store.entries("r"))
        assert _read(work) == before


@given(NAMES, NAMES)
def test_any_file_name_survives_the_json_of_a_changeset(name: bytes, target: bytes) -> None:
    path = os.fsdecode(name)
    link = os.fsdecode(target)
    change = FileChange.model_validate(
        {"path": path, "change": "created", "after": {"kind": "symlink", "target": link}}
    )
    changeset = Changeset(changes=(change,))
    again = Changeset.model_validate_json(changeset.model_dump_json())
    assert again == changeset and again.digest == changeset.digest
    assert os.fsencode(again.changes[0].path) == name


@given(NAMES)
def test_any_file_name_survives_a_journal_entry(name: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "work"
        work.mkdir()
        path = os.fsencode(work) + b"/" + name
        with open(path, "wb") as handle:
            handle.write(b"prior\n")
        from harness.effects._files import file_state

        before = file_state(path)
        journal = UndoJournal(Path(tmp) / "state", JournalOrigin(run="r", call="c"))
        entry = journal.record_files([(os.fsdecode(name), before, None)], work)
        (loaded,) = JournalStore(Path(tmp) / "state").entries("r")
        assert isinstance(loaded, JournalEntry) and loaded == entry
        assert os.fsencode(loaded.files[0].path) == name


SEGMENTS = st.lists(
    st.tuples(st.binary(max_size=3000), st.integers(min_value=0, max_value=3 << 20)), max_size=5
)


@settings(max_examples=30, deadline=None)
@given(SEGMENTS)
def test_sparse_copy_and_hash_see_the_same_bytes_as_a_plain_read(
    segments: list[tuple[bytes, int]],
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        source, target = Path(tmp) / "source", Path(tmp) / "target"
        with open(source, "wb") as handle:
            for data, hole in segments:
                handle.write(data)
                handle.seek(hole, os.SEEK_CUR)
            handle.truncate()
        plain = source.read_bytes()
        expected = hashlib.sha256(plain).hexdigest()
        src = os.open(source, os.O_RDONLY)
        dst = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            assert sparse_sha256(src) == expected
            assert copy_sparse(src, dst) == expected
        finally:
            os.close(src)
            os.close(dst)
        assert target.read_bytes() == plain
        assert os.stat(target).st_blocks <= os.stat(source).st_blocks + 16  # holes stay holes
