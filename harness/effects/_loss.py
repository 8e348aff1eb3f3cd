"""How many bytes of a file's old content a change destroys.

The effect policy judges a change by the information it loses, not by its
lines: replacing a one-line file of a megabyte loses a megabyte. The measure
is the old bytes the new content no longer holds in place:

* an append (the new content starts with the old) loses nothing;
* otherwise the common prefix and suffix are kept; what lies between them in
  the old content is lost, unless a line diff of that middle finds fewer
  bytes removed or replaced (edits scattered over a file lose their lines,
  not everything between them);
* a middle that is not text, or too long to diff cheaply (``MAX_DIFF_PAIRS``),
  counts whole: no pair of files can stall the policy.

A side that could not be read (too large, not a regular file) counts as all
of the old size lost: the measure fails closed.
"""

from __future__ import annotations

import difflib

__all__ = ["MAX_DIFF_PAIRS", "lost_bytes"]

# A line diff costs up to old lines x new lines: above this the changed middle
# counts whole (about 50 ms of diff at worst on a busy core).
MAX_DIFF_PAIRS = 250_000
_BLOCK = 1 << 16


def lost_bytes(old: bytes | None, new: bytes | None, old_size: int) -> int:
    """Bytes of ``old`` that ``new`` no longer holds.

    Args:
        old: the old content; None when it could not be read (counts ``old_size``).
        new: the new content; None for a deleted file or one that could not be read.
        old_size: the old content's size, as the changeset states it.
    """
    if old is None:
        return old_size
    if new is None or not old:
        return len(old)
    if new.startswith(old):
        return 0
    prefix = _common_prefix(old, new)
    suffix = _common_suffix(old, new, min(len(old), len(new)) - prefix)
    # Widen the changed middle to whole lines (the prefix and suffix are common, so
    # the same offsets cut both sides), then diff those lines.
    start = old.rfind(b"\n", 0, prefix) + 1
    newline = old.find(b"\n", len(old) - suffix)
    cut = 0 if newline == -1 else len(old) - newline - 1
    old_mid = old[start : len(old) - cut]
    if not old_mid:
        return 0
    new_mid = new[start : len(new) - cut]
    # One contiguous change loses the old bytes between prefix and suffix; scattered
    # ones lose the lines that are gone: the smaller of the two is what is lost.
    narrow = len(old) - prefix - suffix
    lines = _lines_lost(old_mid, new_mid) if narrow > 0 else None
    return narrow if lines is None else min(narrow, lines)


def _lines_lost(old: bytes, new: bytes) -> int | None:
    """Bytes of the old lines a line diff removes or replaces; None when too costly.

    Order is information too: a sorted or shuffled file loses the lines that
    are out of place, not nothing.
    """
    if b"\0" in old or b"\0" in new:
        return None
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    if len(a) * len(b) > MAX_DIFF_PAIRS:
        return None
    lost = 0
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, _, _ in matcher.get_opcodes():
        if tag in ("replace", "delete"):
            lost += sum(len(line) for line in a[i1:i2])
    return lost


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix: block by block, then halving inside the first
    block that differs (every comparison runs in C, each byte is copied about once)."""
    limit = min(len(a), len(b))
    done = 0
    while done < limit:
        end = min(done + _BLOCK, limit)
        if a[done:end] != b[done:end]:
            low, high = done, end - 1  # the answer lies in [done, end)
            while low < high:
                mid = (low + high + 1) // 2
                if a[done:mid] == b[done:mid]:
                    low = mid
                else:
                    high = mid - 1
            return low
        done = end
    return limit


def _common_suffix(a: bytes, b: bytes, limit: int) -> int:
    """Length of the common suffix, at most ``limit`` (block by block from the end)."""
    limit = min(limit, len(a), len(b))
    done = 0
    while done < limit:
        end = min(done + _BLOCK, limit)
        if a[len(a) - end : len(a) - done] != b[len(b) - end : len(b) - done]:
            low, high = done, end - 1
            while low < high:
                mid = (low + high + 1) // 2
                if a[len(a) - mid : len(a) - done] == b[len(b) - mid : len(b) - done]:
                    low = mid
                else:
                    high = mid - 1
            return low
        done = end
    return limit
