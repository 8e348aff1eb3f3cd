"""What the approval preview's diff costs, and what reading with no symlink followed costs.

Figures (medians of a few runs, seconds or microseconds):

- a one-line change to a file of 1M equal lines (``line_counts``; before the
  budget, difflib's matcher was quadratic there and never ended);
- a one-byte change to a 50 MB single-line file (counts, then the preview,
  which shows sizes and digests past the budget);
- the worst case inside the budget (a changed middle of equal lines filling
  ``PREVIEW_BUDGET.max_cells``);
- ``file_state_at`` (``openat2``, or the walk) against ``file_state`` (a plain
  ``lstat`` and open), per call, on a path three folders deep.

Run: ``python bench/diff_budget.py``
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.effects import Changeset, FileChange, changeset_preview, layer_reader
from harness.effects._beneath import openat2_available
from harness.effects._diff import PREVIEW_BUDGET
from harness.effects._files import file_state, file_state_at, line_counts


def _median(run: Callable[[], object], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _long_file() -> None:
    old = b"same\n" * 1_000_000
    new = b"same\n" * 500_000 + b"changed\n" + b"same\n" * 499_999
    seconds = _median(lambda: line_counts(old, new))
    print(f"1M-line file, one line changed: line_counts {seconds:.3f} s")


def _one_line(root: Path) -> None:
    size = 50 * 1024 * 1024
    work, upper = root / "work", root / "upper"
    work.mkdir()
    upper.mkdir()
    (work / "one.txt").write_bytes(b"x" * size)
    (upper / "one.txt").write_bytes(b"y" + b"x" * (size - 1))
    old, new = (work / "one.txt").read_bytes(), (upper / "one.txt").read_bytes()
    counts = _median(lambda: line_counts(old, new))
    change = FileChange(
        path="one.txt",
        change="modified",
        before=file_state_at(work, "one.txt"),
        after=file_state_at(upper, "one.txt"),
        binary=True,
    )
    changeset = Changeset(changes=(change,))
    preview = _median(lambda: changeset_preview(changeset, work, layer_reader(upper)))
    print(
        f"50 MB single line, first byte changed: line_counts {counts:.3f} s, "
        f"preview {preview * 1000:.1f} ms (sizes and digests shown)"
    )


def _worst_in_budget() -> None:
    side = int(PREVIEW_BUDGET.max_cells**0.5)
    old = ("a\n" * side).encode()
    new = ("b\n" + "a\n" * (side - 2) + "c\n").encode()
    seconds = _median(lambda: line_counts(old, new), repeat=1)
    print(
        f"worst case inside the budget ({side} x {side} equal lines, "
        f"{PREVIEW_BUDGET.max_cells:,} cells): line_counts {seconds:.3f} s"
    )


def _reads(root: Path) -> None:
    deep = root / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("hello\n")
    calls = 2000

    def at() -> None:
        for _ in range(calls):
            file_state_at(root, "a/b/c/f.txt")

    def plain() -> None:
        for _ in range(calls):
            file_state(deep / "f.txt")

    way = "openat2" if openat2_available() else "component walk"
    print(
        f"file_state_at ({way}) {_median(at) / calls * 1e6:.1f} us per call, "
        f"file_state (lstat) {_median(plain) / calls * 1e6:.1f} us per call"
    )


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _long_file()
        (root / "one").mkdir()
        _one_line(root / "one")
        _worst_in_budget()
        (root / "reads").mkdir()
        _reads(root / "reads")


if __name__ == "__main__":
    main()
