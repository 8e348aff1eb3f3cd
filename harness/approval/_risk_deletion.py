"""Large deletions: lines an ``edit`` or an overwriting ``write`` removes, summed over a run.

A model can delete a file twenty lines at a time, or blank lines instead of
removing them, so each call's count is added to a tally kept per run; the call
that brings the run's total to the threshold needs approval, and a human seeing
it resets the tally.
"""

from __future__ import annotations

import os
import stat
import threading
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["DeletionTally", "count_deleted_lines", "count_overwritten_lines"]

# A file bigger than this is not read to count its lines: an overwrite of it counts
# as deleting everything the new content does not replace (fails closed).
_MAX_READ_BYTES = 8 * 1024 * 1024


def count_deleted_lines(arguments: Mapping[str, Any]) -> int:
    """Lines an ``edit`` call removes or blanks, from its arguments alone.

    Each replacement counts the larger of the lines it removes and the non-blank
    lines it blanks (``old_text`` of 5 lines replaced by 5 empty lines counts 5),
    times ``expected_replacements``, never below zero, summed over ``edits`` when
    given, so one growing replacement cannot hide a shrinking one.
    """
    edits = arguments.get("edits")
    items = edits if isinstance(edits, list) else [arguments]
    total = 0
    for item in items:
        if not isinstance(item, Mapping):
            continue
        times = item.get("expected_replacements", 1)
        if isinstance(times, bool) or not isinstance(times, int) or times < 1:
            times = 1
        total += _removed(item.get("old_text"), item.get("new_text")) * times
    return total


def count_overwritten_lines(arguments: Mapping[str, Any], workdir: Path | None) -> int:
    """Lines a ``write mode=overwrite`` removes or blanks from the file it replaces.

    Reads only the existing file's line counts; a path that is not a regular
    file inside the workdir (missing, a FIFO, a device, outside) counts 0, since
    the write creates it or fails.
    """
    if arguments.get("mode") != "overwrite":
        return 0
    path, content = arguments.get("path"), arguments.get("content")
    if not isinstance(path, str) or not isinstance(content, str):
        return 0
    try:
        root = Path(workdir or ".").resolve()
        target = (root / path).resolve()
    except (OSError, ValueError, RuntimeError):
        return 0  # a NUL byte or a symlink loop: the write tool refuses the path
    if not target.is_relative_to(root):
        return 0  # the write tool refuses paths outside the workdir
    old = _read_text(target)
    return _removed(old, content) if old is not None else 0


def _removed(old: object, new: object) -> int:
    old_lines, new_lines = _lines(old), _lines(new)
    removed = len(old_lines) - len(new_lines)
    blanked = _non_blank(old_lines) - _non_blank(new_lines)
    return max(removed, blanked, 0)


def _lines(text: object) -> list[str]:
    return text.splitlines() if isinstance(text, str) else []


def _non_blank(lines: list[str]) -> int:
    return sum(1 for line in lines if line.strip())


def _read_text(path: Path) -> str | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_size > _MAX_READ_BYTES:
        # Too big to read here: every line counts as removed, so it needs approval.
        return "x\n" * (info.st_size // 2)
    try:
        # O_NONBLOCK: a FIFO swapped in after the stat must not hang the policy.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as handle:
            return handle.read(_MAX_READ_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return None


class DeletionTally:
    """Lines deleted so far, per run, for at most ``max_runs`` recent runs.

    Thread-safe: tool calls of one batch may be judged from worker threads.
    """

    def __init__(self, max_runs: int = 256) -> None:
        self._max_runs = max_runs
        self._runs: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, run: str, lines: int) -> int:
        """Add ``lines`` to ``run`` and return the run's new total."""
        with self._lock:
            total = self._runs.pop(run, 0) + lines
            self._runs[run] = total
            while len(self._runs) > self._max_runs:
                self._runs.popitem(last=False)
            return total

    def reset(self, run: str) -> None:
        """Forget ``run``'s total (a human is being shown the deletion)."""
        with self._lock:
            self._runs.pop(run, None)

    def __len__(self) -> int:
        return len(self._runs)
