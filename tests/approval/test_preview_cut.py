"""A cut preview says what it cut and how to see the whole, and never hides a loss.

Before, a changeset of thousands of paths was cut in the middle of its listing
(sorted by name), so a deletion among them could sit in the part nobody saw,
and no note said how to see the rest. Now losses come first, every deletion
is listed, each cut names paths by kind, lines and bytes, and the rendered
prompt names ``harness approvals show ID --full``. Diffs have a budget: a one
line change to a huge file costs its length, and past the budget the preview
shows sizes and digests, saying so.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from harness.approval.preview import ApprovalPreview, CallPreview, render_preview
from harness.effects import Changeset, FileChange, FileState, changeset_preview, layer_reader
from harness.effects._files import file_state_at, line_counts
from harness.effects._paths import AfterBytes

CREATED = 2050
HIDDEN_DELETION = "m_precious.txt"  # sorts into the middle of the created names


def _changeset(tmp_path: Path) -> tuple[Changeset, Path, AfterBytes]:
    """2,050 new files, one modified, one deleted whose name sorts in the middle.

    The new sides are bytes in memory (what ``after`` reads), not files: writing
    thousands of files costs seconds on a busy disk.
    """
    work = tmp_path / "work"
    work.mkdir()
    (work / HIDDEN_DELETION).write_text("".join(f"keep {n}\n" for n in range(5)))
    (work / "notes.md").write_text("one\ntwo\n")
    new: dict[str, bytes] = {"notes.md": b"one\nthree\n"}
    changes = [
        FileChange(
            path=HIDDEN_DELETION,
            change="deleted",
            before=file_state_at(work, HIDDEN_DELETION),
            removed_lines=5,
        ),
        FileChange(
            path="notes.md",
            change="modified",
            before=file_state_at(work, "notes.md"),
            after=_state(new["notes.md"]),
            added_lines=1,
            removed_lines=1,
        ),
    ]
    for n in range(CREATED):
        name = f"{'a' if n % 2 else 'z'}_{n:05d}.txt"
        new[name] = f"new {n}\n".encode()
        changes.append(
            FileChange(path=name, change="created", after=_state(new[name]), added_lines=1)
        )
    return Changeset(changes=tuple(sorted(changes, key=lambda c: c.path))), work, new.get


def _state(data: bytes) -> FileState:
    return FileState(
        kind="file", mode=0o644, size=len(data), sha256=hashlib.sha256(data).hexdigest()
    )


def _render(preview_changes: object) -> str:
    call = CallPreview(
        tool_call_id="c1", tool_name="bash", kind="bash", summary="bash: 1 line(s)", body="x"
    )
    preview = ApprovalPreview(call=call, changeset=preview_changes)  # type: ignore[arg-type]
    return render_preview(preview, approval_id="appr_0123456789abcdef")


def test_a_large_changeset_lists_its_deletion_first_and_says_what_it_cut(tmp_path: Path) -> None:
    changeset, work, after = _changeset(tmp_path)
    preview = changeset_preview(changeset, work, after)
    listed = preview.files.split("\n")
    assert listed[0] == f"deleted {HIDDEN_DELETION} (+0 -5)"
    assert listed[1] == "modified notes.md (+1 -1)"
    assert preview.files_left_out is not None
    assert "51 of 2052 paths not listed (51 created)" in preview.files_left_out
    assert "every deletion is listed" in preview.files_left_out
    # The diff starts with the deletion too, and its cut names lines, bytes and files.
    assert preview.diff.split("\n")[0] == f"=== deleted {HIDDEN_DELETION}"
    assert preview.diff_left_out is not None
    assert " bytes) left out, lines 301-" in preview.diff_left_out
    assert "file(s)" in preview.diff_left_out
    text = _render(preview)
    assert f"cut: {preview.files_left_out}" in text
    assert "harness approvals show appr_0123456789abcdef --full" in text


def test_the_full_preview_leaves_nothing_out(tmp_path: Path) -> None:
    changeset, work, after = _changeset(tmp_path)
    preview = changeset_preview(changeset, work, after, full=True)
    assert preview.full
    assert (preview.files_left_out, preview.diff_left_out) == (None, None)
    assert len(preview.files.split("\n")) == len(changeset.changes)
    assert preview.diff.count("\n=== created ") == CREATED
    text = _render(preview)
    assert "cut:" not in text and "--full" not in text


def test_many_deletions_are_all_listed(tmp_path: Path) -> None:
    # Only the listing matters here: the deleted files need not exist (their sections
    # then say the file changed since the call, which approving would refuse).
    changes = [
        FileChange(
            path=f"d{n:05d}.txt", change="deleted", before=_state(b"gone\n"), removed_lines=1
        )
        for n in range(2050)
    ]
    preview = changeset_preview(Changeset(changes=tuple(changes)), tmp_path, lambda _: None)
    assert preview.files_left_out is None
    assert len(preview.files.split("\n")) == 2050
    assert all(line.startswith("deleted d") for line in preview.files.split("\n"))


def test_a_one_line_change_to_a_long_file_is_diffed_in_linear_time(tmp_path: Path) -> None:
    # 200,000 equal lines: difflib's matcher alone is quadratic on them (it never ended).
    lines = 200_000
    old = b"same\n" * lines
    new = b"same\n" * (lines // 2) + b"changed\n" + b"same\n" * (lines // 2 - 1)
    assert line_counts(old, new) == (1, 1, False)
    work, upper = tmp_path / "work", tmp_path / "upper"
    work.mkdir()
    upper.mkdir()
    (work / "long.txt").write_bytes(old)
    (upper / "long.txt").write_bytes(new)
    change = FileChange(
        path="long.txt",
        change="modified",
        before=file_state_at(work, "long.txt"),
        after=file_state_at(upper, "long.txt"),
        added_lines=1,
        removed_lines=1,
    )
    preview = changeset_preview(Changeset(changes=(change,)), work, layer_reader(upper))
    assert "-same\n+changed" in preview.diff or "+changed" in preview.diff
    assert preview.diff.count("\n") < 20


def test_past_the_budget_the_preview_shows_sizes_and_digests(tmp_path: Path) -> None:
    # A 3 MB single line changed in its first byte: over the preview's diff budget.
    size = 3 * 1024 * 1024
    old, new = b"x" * size, b"y" + b"x" * (size - 1)
    work, upper = tmp_path / "work", tmp_path / "upper"
    work.mkdir()
    upper.mkdir()
    (work / "one-line.txt").write_bytes(old)
    (upper / "one-line.txt").write_bytes(new)
    change = FileChange(
        path="one-line.txt",
        change="modified",
        before=file_state_at(work, "one-line.txt"),
        after=file_state_at(upper, "one-line.txt"),
        removed_lines=1,
        added_lines=1,
        binary=True,
    )
    preview = changeset_preview(Changeset(changes=(change,)), work, layer_reader(upper))
    assert f"diff too large: {size} bytes, sizes/digests shown" in preview.diff
    assert hashlib.sha256(new).hexdigest() in preview.diff
    assert "harness approvals show ID --full" in preview.diff
    assert len(preview.model_dump_json()) < 10_000
    full = changeset_preview(Changeset(changes=(change,)), work, layer_reader(upper), full=True)
    assert "-" + "x" * 100 in full.diff and "+y" + "x" * 99 in full.diff


def test_counting_lines_past_the_budget_counts_the_changed_middle_as_replaced() -> None:
    old = "".join(f"{n % 2}\n" for n in range(800)).encode()
    new = "".join(f"{(n + 1) % 2}\n" for n in range(800)).encode()
    added, removed, binary = line_counts(old, new, max_cells=1000)
    assert (added, removed, binary) == (800, 800, False)
    assert line_counts(old, new) == (1, 1, False)  # within the budget: the real diff
