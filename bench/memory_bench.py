"""What loading session memory costs per run: the old full read against the tail read.

A long-lived chat session appends to ``memory.jsonl`` forever; a run's context
uses only the last ``ContextBuilder.memory_limit`` (20) entries. The old way
read and parsed the whole file on every run (kept below as ``full_read``, as it
was); ``SessionMemoryStore.load(key, limit=20)`` seeks backwards in blocks and
parses only the lines it returns. Both load the same file, side by side, and
must return the same last 20 entries. Target: the tail read under 50 ms on a
60,000-entry file.

Run: ``python bench/memory_bench.py [--entries 60000] [--runs 20]``
"""

from __future__ import annotations

import argparse
import json
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import ValidationError

from harness.session import MemoryEntry, SessionMemoryStore

TARGET_MS = 50.0
LIMIT = 20


def full_read(path: Path) -> list[MemoryEntry]:
    """The loader before the tail read: every line of the file, every run."""
    entries: list[MemoryEntry] = []
    for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(MemoryEntry.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError):
            logging.warning("skipping unreadable line %d of %s", number, path)
    return entries


def _write(store: SessionMemoryStore, entries: int) -> Path:
    # A chat's shape: a question, then an answer a few sentences long.
    for start in range(0, entries, 1000):
        store.append(
            "chat",
            *(
                MemoryEntry(
                    role="user" if i % 2 == 0 else "assistant",
                    content=f"message {i}: " + "a fairly ordinary sentence of chat. " * 4,
                    metadata={"stop": "final"} if i % 2 else {},
                )
                for i in range(start, min(start + 1000, entries))
            ),
        )
    return store.path_for("chat")


def _median_ms(call: Callable[[], object], runs: int) -> float:
    samples = []
    for _ in range(runs):
        began = time.perf_counter()
        call()
        samples.append((time.perf_counter() - began) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=60_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        store = SessionMemoryStore(Path(folder))
        path = _write(store, args.entries)
        old, new = full_read(path)[-LIMIT:], store.load("chat", limit=LIMIT)
        assert old == new, "the tail read must return what the full read's tail was"
        full_ms = _median_ms(lambda: full_read(path), max(3, args.runs // 4))
        tail_ms = _median_ms(lambda: store.load("chat", limit=LIMIT), args.runs)
        size_mb = path.stat().st_size / 1e6
    print(f"memory.jsonl: {args.entries} entries, {size_mb:.1f} MB; a run uses the last {LIMIT}")
    print(f"{'full read (before)':<22}{full_ms:>10.1f} ms per run")
    print(f"{'tail read (now)':<22}{tail_ms:>10.2f} ms per run")
    verdict = "ok" if tail_ms < TARGET_MS else "TOO SLOW"
    print(f"target: tail read < {TARGET_MS:.0f} ms: {verdict} ({full_ms / tail_ms:.0f}x faster)")


if __name__ == "__main__":
    main()
