"""Line diffs within a budget: a small change to a huge file costs its length, not its square.

``difflib.SequenceMatcher`` is quadratic on repeated lines (8,000 equal lines
with one changed take seconds, a million never end). So the lines both sides
share at the start and at the end are set aside first, in linear time, and
only the middle is matched, and only when its two sides multiply to at most
``max_cells``. Past that there is no diff: the counts treat every middle line
as replaced (more lines count as lost, never fewer) and the preview says the
diff was too large, with sizes and digests instead.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

__all__ = ["FULL_BUDGET", "PREVIEW_BUDGET", "DiffBudget", "Opcode", "line_opcodes", "unified"]

Opcode = tuple[str, int, int, int, int]
"""``(tag, i1, i2, j1, j2)`` as ``SequenceMatcher.get_opcodes`` gives them."""


@dataclass(frozen=True, slots=True)
class DiffBudget:
    """How much one diff may cost.

    Attributes:
        max_bytes: either side larger than this is not diffed.
        max_cells: the middle's old lines times new lines matched at most.
        seconds: the time one preview spends on all its diffs together.
    """

    max_bytes: int
    max_cells: int
    seconds: float


PREVIEW_BUDGET = DiffBudget(max_bytes=1024 * 1024, max_cells=1_000_000, seconds=10.0)
"""What a pause spends building the preview it stores."""

FULL_BUDGET = DiffBudget(max_bytes=16 * 1024 * 1024, max_cells=25_000_000, seconds=300.0)
"""What ``harness approvals show ID --full`` may spend, for a human who asked."""


def line_opcodes(a: list[str], b: list[str], max_cells: int) -> list[Opcode] | None:
    """The opcodes turning ``a`` into ``b``; None when the changed middle is over budget."""
    prefix = 0
    limit = min(len(a), len(b))
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and a[len(a) - 1 - suffix] == b[len(b) - 1 - suffix]:
        suffix += 1
    a_end, b_end = len(a) - suffix, len(b) - suffix
    middle_a, middle_b = a[prefix:a_end], b[prefix:b_end]
    ops: list[Opcode] = []
    if prefix:
        ops.append(("equal", 0, prefix, 0, prefix))
    if middle_a and middle_b:
        if len(middle_a) * len(middle_b) > max_cells:
            return None
        matcher = difflib.SequenceMatcher(None, middle_a, middle_b, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            ops.append((tag, i1 + prefix, i2 + prefix, j1 + prefix, j2 + prefix))
    elif middle_a:
        ops.append(("delete", prefix, a_end, prefix, prefix))
    elif middle_b:
        ops.append(("insert", prefix, prefix, prefix, b_end))
    if suffix:
        ops.append(("equal", a_end, len(a), b_end, len(b)))
    return ops or [("equal", 0, 0, 0, 0)]


def unified(
    a: list[str], b: list[str], old_name: str, new_name: str, max_cells: int, context: int = 3
) -> list[str] | None:
    """``difflib.unified_diff``'s lines (keeping each line's end), or None when over budget."""
    ops = line_opcodes(a, b, max_cells)
    if ops is None:
        return None
    groups = _grouped(ops, context)
    if not groups:
        return []
    lines = [f"--- {old_name}\n", f"+++ {new_name}\n"]
    for group in groups:
        first, last = group[0], group[-1]
        old_range = _range(first[1], last[2])
        new_range = _range(first[3], last[4])
        lines.append(f"@@ -{old_range} +{new_range} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                lines.extend(" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                lines.extend("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                lines.extend("+" + line for line in b[j1:j2])
    return lines


def _grouped(ops: list[Opcode], n: int) -> list[list[Opcode]]:
    """``SequenceMatcher.get_grouped_opcodes`` over ready opcodes (hunks with ``n`` of context)."""
    if len(ops) == 1 and ops[0][0] == "equal":
        return []
    codes = list(ops)
    tag, i1, i2, j1, j2 = codes[0]
    if tag == "equal":
        codes[0] = tag, max(i1, i2 - n), i2, max(j1, j2 - n), j2
    tag, i1, i2, j1, j2 = codes[-1]
    if tag == "equal":
        codes[-1] = tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)
    groups: list[list[Opcode]] = []
    group: list[Opcode] = []
    for tag, i1, i2, j1, j2 in codes:
        if tag == "equal" and i2 - i1 > 2 * n:
            group.append((tag, i1, min(i2, i1 + n), j1, min(j2, j1 + n)))
            groups.append(group)
            group = []
            i1, j1 = max(i1, i2 - n), max(j1, j2 - n)
        group.append((tag, i1, i2, j1, j2))
    if group and not (len(group) == 1 and group[0][0] == "equal"):
        groups.append(group)
    return groups


def _range(start: int, stop: int) -> str:
    """A hunk's range as ``unified_diff`` writes it (``start`` is 0-based)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return f"{beginning}"
    if not length:
        beginning -= 1
    return f"{beginning},{length}"
