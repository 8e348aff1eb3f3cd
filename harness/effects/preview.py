"""The changeset as the approver sees it: per-file unified diffs, sizes, hashes, output.

Text files get a unified diff (old side from the real workdir, new side from
the layer); deleted files their size; binary or oversized files their sizes
and sha256 on both sides; symlinks their targets; mode changes both modes.
The whole is cut like every other preview (head and tail kept, saying how much
was left out), and control characters are escaped by the caller's renderer.
"""

from __future__ import annotations

import difflib
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.effects.changeset import Changeset, FileChange, FileState, summarize
from harness.effects.files import read_bytes
from harness.effects.paths import AfterBytes

__all__ = ["ChangesetPreview", "changeset_preview"]

_MAX_LINES = 350
_HEAD, _TAIL = 300, 50
_OUTPUT_HEAD, _OUTPUT_TAIL = 60, 20


class ChangesetPreview(BaseModel):
    """What a held changeset shows: summary line, the diffs, the command's output.

    Attributes:
        digest: ``Changeset.digest`` of the changes shown (signed with the record).
        summary: one line naming the changes.
        files: every changed path, one a line (never cut below 2,000 paths).
        diff: the per-file sections, cut when long.
        diff_left_out: what the cut left out, when anything.
        output: the command's output, cut when long.
        output_left_out: likewise.
        discarded: writes outside the workdir that were not kept.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    digest: str
    summary: str
    files: str = ""
    diff: str
    diff_left_out: str | None = None
    output: str = ""
    output_left_out: str | None = None
    discarded: tuple[str, ...] = ()


def changeset_preview(
    changeset: Changeset, workdir: Path, after: AfterBytes, output: str = ""
) -> ChangesetPreview:
    """Build the preview of ``changeset`` (``after`` reads the new bytes of a path)."""
    lines: list[str] = []
    for change in changeset.changes:
        lines += _section(change, workdir, after)
    diff, diff_cut = _cut(lines, _HEAD, _TAIL, "diff lines")
    listed, _ = _cut([_listing(c) for c in changeset.changes], 1500, 500, "paths")
    shown_output, output_cut = _cut(output.split("\n"), _OUTPUT_HEAD, _OUTPUT_TAIL, "output lines")
    return ChangesetPreview(
        digest=changeset.digest,
        summary=summarize(changeset),
        files="\n".join(listed),
        diff="\n".join(diff),
        diff_left_out=diff_cut,
        output="\n".join(shown_output),
        output_left_out=output_cut,
        discarded=changeset.discarded,
    )


def _listing(change: FileChange) -> str:
    line = f"{change.change} {change.path}"
    if change.renamed_from:
        line += f" (from {change.renamed_from})"
    if change.removed_lines or change.added_lines:
        line += f" (+{change.added_lines} -{change.removed_lines})"
    if change.after is not None and change.after.setid:
        line += f" SETUID/SETGID {change.after.mode:o}"
    return line


def _section(change: FileChange, workdir: Path, after: AfterBytes) -> list[str]:
    head = f"=== {change.change} {change.path}"
    if change.renamed_from:
        head += f" (from {change.renamed_from})"
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
        old = read_bytes(workdir / change.path)
        text = _text(old)
        if text is not None:
            out += _diff(text, "", change.path)
        return out
    old_text = _text(read_bytes(workdir / change.path)) if before is not None else ""
    new_text = _text(after(change.path)) if now is not None else ""
    if change.binary or old_text is None or new_text is None:
        out.append(f"binary or too large to diff: {_describe(before)} -> {_describe(now)}")
        return out
    if change.change == "mode":
        return out
    return out + _diff(old_text, new_text, change.path)


def _diff(old: str, new: str, path: str) -> list[str]:
    lines: list[str] = []
    for line in difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), f"a/{path}", f"b/{path}"
    ):
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
        return f"symlink to {state.target!r}"
    if state.kind == "file":
        return f"file of {state.size} bytes, sha256 {state.sha256}"
    return f"{state.kind}, mode {state.mode:o}"


def _text(data: bytes | None) -> str | None:
    if data is None or b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _cut(lines: list[str], head: int, tail: int, noun: str) -> tuple[list[str], str | None]:
    if len(lines) <= max(_MAX_LINES, head + tail) and len(lines) <= head + tail:
        return lines, None
    missing = len(lines) - head - tail
    note = f"{missing} {noun} left out ({noun} {head + 1}-{head + missing} of {len(lines)})"
    return [*lines[:head], f"[... {note} ...]", *lines[-tail:]], note
