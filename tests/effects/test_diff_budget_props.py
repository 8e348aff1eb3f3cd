"""The budgeted line diff: a real edit script within the budget, a bigger count past it."""

from __future__ import annotations

import difflib

from hypothesis import given
from hypothesis import strategies as st

from harness.effects._diff import line_opcodes, unified
from harness.effects._files import line_counts

_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d"]), max_size=30)


def _apply(a: list[str], b: list[str], ops: list[tuple[str, int, int, int, int]]) -> list[str]:
    out: list[str] = []
    position = 0
    for tag, i1, i2, j1, j2 in ops:
        assert i1 == position
        out += a[i1:i2] if tag == "equal" else b[j1:j2]
        position = i2
    assert position == len(a)
    return out


@given(a=_LINES, b=_LINES)
def test_the_opcodes_turn_the_old_lines_into_the_new(a: list[str], b: list[str]) -> None:
    ops = line_opcodes(a, b, max_cells=10_000)
    assert ops is not None
    assert _apply(a, b, ops) == b
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]


_TEXT = st.lists(st.sampled_from(["a", "b", "c", "\n"]), max_size=40).map("".join)


def _patch(a: list[str], diff: list[str]) -> list[str]:
    """``a`` with the unified diff's hunks applied."""
    out: list[str] = []
    position = 0
    for line in diff[2:]:
        if line.startswith("@@"):
            start = int(line.split()[1][1:].split(",")[0])
            length = line.split()[1].split(",")
            begin = start - 1 if len(length) == 1 or length[1] != "0" else start
            out += a[position:begin]
            position = begin
        elif line.startswith((" ", "-")):
            assert a[position] == line[1:]
            position += 1
            if line.startswith(" "):
                out.append(line[1:])
        else:
            out.append(line[1:])
    return out + a[position:]


@given(old=_TEXT, new=_TEXT)
def test_the_unified_diff_turns_the_old_text_into_the_new(old: str, new: str) -> None:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    lines = unified(a, b, "a/f", "b/f", max_cells=10_000)
    assert lines is not None
    assert _patch(a, lines) == b
    assert (lines == []) == (a == b)
    if a and b and a[0] != b[0] and a[-1] != b[-1]:
        # Nothing shared at the ends: the hunks difflib itself writes, without autojunk.
        assert lines == list(difflib.unified_diff(a, b, "a/f", "b/f"))


@given(a=_LINES, b=_LINES, cells=st.integers(min_value=0, max_value=50))
def test_past_the_budget_no_fewer_lines_count_as_lost(
    a: list[str], b: list[str], cells: int
) -> None:
    old, new = "".join(a).encode(), "".join(b).encode()
    within = line_counts(old, new, max_cells=10_000)
    capped = line_counts(old, new, max_cells=cells)
    assert capped[0] >= within[0] and capped[1] >= within[1]
    assert capped[1] <= len(old.splitlines()) and capped[0] <= len(new.splitlines())
