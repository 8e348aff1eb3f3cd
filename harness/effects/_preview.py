"""The changeset as the approver sees it: per-file unified diffs, sizes, hashes, output.

Text files get a unified diff (old side from the real workdir, new side from
the layer, both read with no symlink followed and checked against the hashes
the changeset signs); deleted files their size; binary files, and files whose
diff is over the budget (``diff``), their sizes and sha256 on both sides;
symlinks their targets; mode changes both modes.

Nothing is hidden: losses come first (deletions, then changes to what
existed, then new files), every deletion is listed however long the list,
names are quoted when they hold anything but plain characters (``names``),
and every cut says what it left out (paths by kind, lines, bytes) and how to
see the whole: ``harness approvals show ID --full``, which builds the same
preview with ``full=True`` (a larger diff budget, nothing cut).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.effects._changeset import Changeset, FileChange, FileState, summarize
from harness.effects._diff import FULL_BUDGET, PREVIEW_BUDGET, DiffBudget, unified
from harness.effects._files import read_bytes_at
from harness.effects._names import escape_line, shown_path
from harness.effects._paths import AfterBytes

__all__ = ["FULL_HINT", "ChangesetPreview", "changeset_preview", "loss_order"]

FULL_HINT = "see all of it with `harness approvals show ID --full`"
"""How a cut note says where the whole is (the rendered prompt names the real id)."""

_DIFF_HEAD, _DIFF_TAIL = 300, 50
_OUTPUT_HEAD, _OUTPUT_TAIL = 60, 20
_LISTED_OTHERS = 2000
_LISTED_DELETIONS = 100_000  # every deletion, up to a preview no store should refuse
_MAX_LINE_CHARS = 2000


class ChangesetPreview(BaseModel):
    """What a held changeset shows: summary line, the diffs, the command's output.

    Attributes:
        digest: ``Changeset.digest`` of the changes shown (signed with the record).
        summary: one line naming the changes.
        files: every changed path, one a line, losses first (deletions always listed).
        files_left_out: what the listing left out (paths by kind), when anything.
        diff: the per-file sections, losses first, cut when long.
        diff_left_out: what the cut left out (lines, bytes, files), when anything.
        output: the command's output, cut when long.
        output_left_out: likewise.
        discarded: writes outside the workdir that were not kept.
        full: built with nothing cut (``harness approvals show ID --full``).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    digest: str
    summary: str
    files: str = ""
    files_left_out: str | None = None
    diff: str
    diff_left_out: str | None = None
    output: str = ""
    output_left_out: str | None = None
    discarded: tuple[str, ...] = ()
    full: bool = False


def loss_order(change: FileChange) -> tuple[int, str]:
    """Sort key: deletions, then changes to what existed, then new paths; by path within."""
    if change.after is None:
        rank = 0
    elif change.before is None:
        rank = 2
    else:
        rank = 1
    return rank, change.path


def changeset_preview(
    changeset: Changeset, workdir: Path, after: AfterBytes, output: str = "", *, full: bool = False
) -> ChangesetPreview:
    """Build the preview of ``changeset`` (``after`` reads the new bytes of a path).

    ``full``: nothing cut, and the larger diff budget (``diff.FULL_BUDGET``).
    """
    budget = FULL_BUDGET if full else PREVIEW_BUDGET
    ordered = sorted(changeset.changes, key=loss_order)
    deadline = time.monotonic() + budget.seconds
    lines: list[str] = []
    sections: list[int] = []  # the line each file's section starts at
    for change in ordered:
        sections.append(len(lines))
        late = time.monotonic() > deadline
        lines += _section(change, workdir, after, budget, late)
    lines, long_lines = _cut_long_lines(lines, full)
    listed, files_cut = _listing(ordered, full)
    if full:
        diff, diff_cut = lines, None
        shown_output, output_cut = output.split("\n"), None
    else:
        diff, diff_cut = _cut_diff(lines, sections)
        shown_output, output_cut = _cut(output.split("\n"), _OUTPUT_HEAD, _OUTPUT_TAIL)
    notes = [note for note in (diff_cut, long_lines) if note]
    return ChangesetPreview(
        digest=changeset.digest,
        summary=escape_line(summarize(_shown(changeset))),
        files="\n".join(listed),
        files_left_out=files_cut,
        diff="\n".join(diff),
        diff_left_out="; ".join(notes) or None,
        output="\n".join(shown_output),
        output_left_out=output_cut,
        discarded=tuple(escape_line(note) for note in changeset.discarded),
        full=full,
    )


def _shown(changeset: Changeset) -> Changeset:
    """The changeset with its names quoted for display (its digest is not this one's)."""
    changes = tuple(
        change.model_copy(
            update={
                "path": shown_path(change.path),
                "renamed_from": shown_path(change.renamed_from) if change.renamed_from else None,
            }
        )
        for change in changeset.changes
    )
    return changeset.model_copy(update={"changes": changes})


def _listing(ordered: list[FileChange], full: bool) -> tuple[list[str], str | None]:
    deletions = [c for c in ordered if c.after is None]
    others = [c for c in ordered if c.after is not None]
    keep_deleted = len(deletions) if full else min(len(deletions), _LISTED_DELETIONS)
    keep_others = len(others) if full else min(len(others), _LISTED_OTHERS)
    listed = [_line(c) for c in deletions[:keep_deleted]] + [_line(c) for c in others[:keep_others]]
    left = deletions[keep_deleted:] + others[keep_others:]
    if not left:
        return listed, None
    kinds: dict[str, int] = {}
    for change in left:
        kinds[change.change] = kinds.get(change.change, 0) + 1
    by_kind = ", ".join(f"{count} {kind}" for kind, count in sorted(kinds.items()))
    note = f"{len(left)} of {len(ordered)} paths not listed ({by_kind}); {FULL_HINT}"
    if not deletions[keep_deleted:]:
        note += "; every deletion is listed"
    return [*listed, f"[... {note} ...]"], note


def _line(change: FileChange) -> str:
    line = f"{change.change} {shown_path(change.path)}"
    if change.renamed_from:
        line += f" (from {shown_path(change.renamed_from)})"
    if change.removed_lines or change.added_lines:
        line += f" (+{change.added_lines} -{change.removed_lines})"
    if change.after is not None and change.after.setid:
        line += f" SETUID/SETGID {change.after.mode:o}"
    return line


def _section(
    change: FileChange, workdir: Path, after: AfterBytes, budget: DiffBudget, late: bool
) -> list[str]:
    name = shown_path(change.path)
    head = f"=== {change.change} {name}"
    if change.renamed_from:
        head += f" (from {shown_path(change.renamed_from)})"
    out = [head]
    before, now = change.before, change.after
    if before and now and before.mode != now.mode:
        out.append(f"mode {before.mode:o} -> {now.mode:o}")
    if now is not None and now.setid:
        out.append(f"SETUID/SETGID: mode {now.mode:o}")
    if _is(before, "symlink") or _is(now, "symlink"):
        out.append(f"symlink: {_describe(before)} -> {_describe(now)}")
        return out
    if _is(before, "dir") or _is(now, "dir") or _is(before, "special") or _is(now, "special"):
        out.append(f"{_describe(before)} -> {_describe(now)}")
        return out
    if now is None and before is not None:
        out.append(
            f"deleted file of {before.size} bytes, {change.removed_lines} line(s), "
            f"sha256 {before.sha256}"
        )
    if change.change == "mode":
        return out
    large = any(s is not None and s.size > PREVIEW_BUDGET.max_bytes for s in (before, now))
    if change.binary and not large:  # the reader marks a side over its budget binary too
        out.append(f"binary: {_describe(before)} -> {_describe(now)}")
        return out
    if late:
        out.append(
            f"diff skipped: this preview's time budget ({budget.seconds:g} s) was spent; "
            f"{_describe(before)} -> {_describe(now)}; {FULL_HINT}"
        )
        return out
    old = _side(before, lambda: read_bytes_at(workdir, change.path, budget.max_bytes), budget)
    new = _side(now, lambda: after(change.path), budget)
    if not {old, new} & {_GONE, _TOO_LARGE, _BINARY}:
        diff = unified(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
            budget.max_cells,
        )
        if diff is not None:
            return out + _diff_lines(diff)
    why = _why_no_diff(before, now, old, new)
    out.append(f"{why}: {_describe(before)} -> {_describe(now)}")
    if why.startswith("diff too large"):
        out[-1] += f"; {FULL_HINT}"
    return out


# Why a side has no text; a NUL never survives into a side's text (binary), so these
# cannot be confused with a file's content.
_GONE = "\0changed since the call"
_TOO_LARGE = "\0too large"
_BINARY = "\0binary"
_Read = Callable[[], bytes | None]


def _side(state: FileState | None, read: _Read, budget: DiffBudget) -> str:
    """A side's text, checked against the hash the changeset signs, or why there is none."""
    if state is None:
        return ""
    if state.size > budget.max_bytes:
        return _TOO_LARGE
    data = read()
    if data is None or len(data) != state.size:
        return _GONE
    if hashlib.sha256(data).hexdigest() != state.sha256:
        return _GONE
    if b"\0" in data:
        return _BINARY
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return _BINARY


def _why_no_diff(before: FileState | None, now: FileState | None, old: str, new: str) -> str:
    if _GONE in (old, new):
        return "no diff: the file changed since the call ran (approving will refuse it)"
    if _BINARY in (old, new):
        return "binary"
    sizes = [state.size for state in (before, now) if state is not None]
    return f"diff too large: {max(sizes, default=0)} bytes, sizes/digests shown"


def _diff_lines(diff: list[str]) -> list[str]:
    lines: list[str] = []
    for line in diff:
        lines.append(line.removesuffix("\n"))
        if not line.endswith("\n"):
            lines.append("\\ No newline at end of file")
    return lines


def _is(state: FileState | None, kind: str) -> bool:
    return state is not None and state.kind == kind


def _describe(state: FileState | None) -> str:
    if state is None:
        return "(nothing)"
    if state.kind == "symlink":
        return f"symlink to {shown_path(state.target or '')}"
    if state.kind == "file":
        return f"file of {state.size} bytes, sha256 {state.sha256}"
    return f"{state.kind}, mode {state.mode:o}"


def _cut_long_lines(lines: list[str], full: bool) -> tuple[list[str], str | None]:
    if full:
        return lines, None
    cut = 0
    chars = 0
    out: list[str] = []
    for line in lines:
        if len(line) <= _MAX_LINE_CHARS:
            out.append(line)
            continue
        extra = len(line) - _MAX_LINE_CHARS
        cut += 1
        chars += extra
        out.append(f"{line[:_MAX_LINE_CHARS]}[... {extra} more characters on this line ...]")
    if not cut:
        return out, None
    return out, f"{cut} long line(s) cut at {_MAX_LINE_CHARS} characters ({chars} characters)"


def _cut_diff(lines: list[str], sections: list[int]) -> tuple[list[str], str | None]:
    shown, note = _cut(lines, _DIFF_HEAD, _DIFF_TAIL)
    if note is None:
        return shown, None
    first, last = _DIFF_HEAD, len(lines) - _DIFF_TAIL
    touched = sum(
        1
        for number, start in enumerate(sections)
        if start < last
        and (sections[number + 1] if number + 1 < len(sections) else len(lines)) > first
    )
    left = lines[first:last]
    size = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in left)
    full_note = (
        f"{len(left)} diff lines ({size} bytes) left out, lines {first + 1}-{last} of "
        f"{len(lines)}, in the sections of {touched} file(s); {FULL_HINT}"
    )
    shown[_DIFF_HEAD] = f"[... {full_note} ...]"
    return shown, full_note


def _cut(lines: list[str], head: int, tail: int) -> tuple[list[str], str | None]:
    if len(lines) <= head + tail:
        return lines, None
    missing = len(lines) - head - tail
    size = sum(len(line.encode("utf-8", "surrogatepass")) + 1 for line in lines[head:-tail])
    note = (
        f"{missing} lines ({size} bytes) left out, lines {head + 1}-{head + missing} "
        f"of {len(lines)}; {FULL_HINT}"
    )
    return [*lines[:head], f"[... {note} ...]", *lines[-tail:]], note
