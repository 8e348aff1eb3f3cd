"""What the undo journal costs per applied call, and how the apply budgets treat a sparse file.

1. Journal cost: a bash-like changeset that modifies 10 files (4 KiB each) is
   journaled (``UndoJournal.record``: the prior bytes of the 10 files into blobs,
   one entry) in a workdir of 100 files and one of 10,000, side by side; then
   a 100-file change in the small workdir. Each call writes new content, so no
   blob is already kept (the worst case). Also shown: the whole apply with and
   without the journal. Target: at most 2 ms per 10-file call, growing with
   the change, not the workdir.
2. Budgets: ``truncate -s 1G big`` run by a real application over the overlay,
   with the approval gate (it pauses: time, disk used by the held layer), then
   approved (time, disk used in the workdir), and with no gate (applied at once).

Run: ``python bench/journal_bench.py [--calls 200]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness.effects import apply_changeset, read_changeset
from harness.effects._journal import JournalOrigin, UndoJournal

_FILE = 4096


def _workdir(root: Path, files: int) -> Path:
    work = root / f"work{files}"
    for index in range(files):
        folder = work / f"d{index // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index % 100:02d}.txt").write_bytes(b"x" * _FILE)
    return work


def _journal_cost(root: Path, files: int, changed: int, calls: int) -> tuple[float, float, float]:
    """Medians in ms: journal record, apply without the journal, apply with it."""
    work = _workdir(root, files)
    state = root / f"state{files}-{changed}"
    record: list[float] = []
    bare: list[float] = []
    full: list[float] = []
    for call in range(calls):
        upper = root / "upper"
        shutil.rmtree(upper, ignore_errors=True)
        for index in range(changed):
            target = upper / f"d{index // 100:03d}" / f"f{index % 100:02d}.txt"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(f"call {call} ".encode() * (_FILE // 8))
        changeset = read_changeset(upper, work)
        journal = UndoJournal(state, JournalOrigin(run="bench", call=f"c{call}", tool="bash"))
        if call % 2:
            started = time.perf_counter()
            apply_changeset(changeset, work, upper, journal=None)
            bare.append(time.perf_counter() - started)
            continue
        started = time.perf_counter()
        entry = journal.record(changeset, work)
        record.append(time.perf_counter() - started)
        journal.forget(entry)
        started = time.perf_counter()
        apply_changeset(changeset, work, upper, journal=journal)
        full.append(time.perf_counter() - started)
    return tuple(statistics.median(v) * 1000 for v in (record, bare, full))  # type: ignore[return-value]


def _used(path: Path) -> int:
    """Bytes on disk under ``path`` (allocated blocks, not apparent sizes)."""
    if not path.exists():
        return 0
    if path.is_file():
        return os.lstat(path).st_blocks * 512
    total = 0
    for folder, _, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(folder, name)).st_blocks * 512
    return total


def _sparse(root: Path) -> None:
    from harness import Settings, build_application
    from harness.providers import ScriptedProvider, tool_call
    from harness.tools.sandbox import choose_sandbox

    if not choose_sandbox("auto").overlay:
        print("no overlay here (bwrap): the sparse-file figures need one")
        return
    command = "truncate -s 1G big"
    print(f"\n1 GB sparse file: `{command}` in a real application (bash over the overlay)")
    for gate in ("cli", "off"):
        base = root / f"sparse-{gate}"
        work = base / "work"
        work.mkdir(parents=True)
        settings = Settings(
            workdir=work,
            state_dir=base / "state",
            enabled_tools=("read", "bash"),
            approval_provider=gate,
        )
        provider = ScriptedProvider([tool_call("bash", command=command), "done", "done"])
        app = build_application(settings, provider=provider)
        try:
            started = time.perf_counter()
            result = app.run("make it", session="bench")
            ran = time.perf_counter() - started
            held = _used(base / "state" / "layers")
            print(
                f"  gate {gate:3s}: {result.stop_reason:17s} in {ran:5.2f} s; "
                f"held layer on disk {held / 1e6:6.2f} MB; "
                f"workdir big on disk {_used(work / 'big') / 1e6:6.2f} MB"
            )
            if result.stop_reason == "approval_required":
                reasons = result.text.split("(", 1)[1].rsplit(")", 1)[0]
                print(f"    reasons: {reasons[:220]}")
                started = time.perf_counter()
                resumed = app.resume_approval(result.approval_id, "approve", session="bench")
                took = time.perf_counter() - started
                size = os.lstat(work / "big").st_size if (work / "big").exists() else 0
                print(
                    f"    approved: {resumed.stop_reason} in {took:5.2f} s; apparent size "
                    f"{size / 1e9:.2f} GB, on disk {_used(work / 'big') / 1e6:.2f} MB"
                )
        finally:
            app.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=200, help="applied calls per cell")
    parser.add_argument("--no-sparse", action="store_true", help="skip the 1 GB sparse file")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="journal-bench-") as tmp:
        root = Path(tmp)
        print(
            f"journal cost per applied call, {args.calls} calls per cell, medians; load {load:.1f}"
        )
        print(f"{'workdir':>8s} {'change':>7s} {'journal':>9s} {'apply':>9s} {'apply+j':>9s}")
        warm = root / "warm-up"
        warm.mkdir()
        _journal_cost(warm, 100, 10, 20)  # imports, caches, the first blobs folder
        shutil.rmtree(warm)
        rows = []
        for files, changed in ((100, 10), (10_000, 10), (100, 100)):
            cell = root / f"c{files}-{changed}"
            cell.mkdir()
            record, bare, full = _journal_cost(cell, files, changed, args.calls)
            rows.append((files, changed, record))
            print(f"{files:8d} {changed:7d} {record:7.3f}ms {bare:7.3f}ms {full:7.3f}ms")
            shutil.rmtree(cell)
        small, large, bigger = (row[2] for row in rows)
        print(
            f"10-file change: {small:.3f} ms (target <= 2 ms: {'PASS' if small <= 2 else 'FAIL'}); "
            f"10,000-file workdir / 100-file: {large / small:.2f}x; "
            f"100-file change / 10-file: {bigger / small:.1f}x"
        )
        if not args.no_sparse:
            _sparse(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
