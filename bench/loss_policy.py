"""What judging a change by its information loss costs: the loss measure and the policy.

Prints, median of several runs each: ``lost_bytes`` on the shapes that matter
(a one-line change to a long file, a one-byte change to a one-line megabyte
file, edits scattered over a file at the diff's cap and far above it), and
``EffectPolicy.evaluate`` on a 10-file text change of a real workdir with a git
store (the reads of before and after included), and on a changeset that moves
a branch (one ``git merge-base`` each).

Run: ``python bench/loss_policy.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from harness.effects._changeset import Changeset, FileChange, FileState
from harness.effects._loss import lost_bytes
from harness.effects._policy import EffectPolicy

GIT_ENV = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}  # fmt: skip


def _median_ms(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def _state(data: bytes) -> FileState:
    return FileState(
        kind="file", mode=0o644, size=len(data), sha256=hashlib.sha256(data).hexdigest()
    )


def _measure(repeat: int) -> None:
    long = b"".join(b"line %d of a long file\n" % i for i in range(200_000))
    one_change = long.replace(b"line 100000 of", b"LINE 100000 of")
    one_line = b"x" * 1_000_000
    cap = b"".join(b"row %d\n" % i for i in range(499))
    cap_edit = b"".join(r if i % 2 else b"z" + r for i, r in enumerate(cap.splitlines(True)))
    big = b"".join(b"row %d\n" % i for i in range(100_000))
    big_edit = b"".join(r if i % 2 else b"z" + r for i, r in enumerate(big.splitlines(True)))
    rows = [
        ("one line changed in a 4.9 MB file", long, one_change),
        ("one byte changed in a 1 MB one-line file", one_line, one_line[:-1] + b"y"),
        ("every other line of 499 changed (diff cap)", cap, cap_edit),
        ("every other line of 100k changed (no diff)", big, big_edit),
    ]
    for label, old, new in rows:
        ms = _median_ms(lambda o=old, n=new: lost_bytes(o, n, len(o)), repeat)
        print(f"lost_bytes, {label}: {ms:.2f} ms ({lost_bytes(old, new, len(old))} bytes lost)")


def _policy(repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "work"
        work.mkdir()
        env = {**os.environ, **GIT_ENV}
        files = {
            f"src/m{i}.py": b"".join(b"x%d = %d\n" % (j, j) for j in range(200)) for i in range(10)
        }
        for path, data in files.items():
            (work / path).parent.mkdir(parents=True, exist_ok=True)
            (work / path).write_bytes(data)
        for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-qm", "a"],
                     ["commit", "-q", "--allow-empty", "-m", "b"]):  # fmt: skip
            subprocess.run(["git", *args], cwd=work, env=env, check=True, capture_output=True)
        new = {p: d.replace(b"x5 = 5\n", b"x5 = 6\n") for p, d in files.items()}
        changes = tuple(
            FileChange(path=p, change="modified", before=_state(files[p]), after=_state(new[p]),
                       added_lines=1, removed_lines=1)
            for p in sorted(files)
        )  # fmt: skip
        policy = EffectPolicy()
        text = Changeset(changes=changes)
        ms = _median_ms(lambda: policy.evaluate(text, work, new.get), repeat)
        print(f"EffectPolicy.evaluate, 10 files changed by one line each: {ms:.2f} ms")
        head = (work / ".git/refs/heads/main").read_bytes()
        parent = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=work, env=env,
                                capture_output=True, check=True).stdout  # fmt: skip
        ref = FileChange(path=".git/refs/heads/main", change="modified", before=_state(head),
                         after=_state(parent))  # fmt: skip
        moved = Changeset(changes=(ref,))
        ms = _median_ms(lambda: policy.evaluate(moved, work, lambda p: parent), repeat)
        decision = policy.evaluate(moved, work, lambda p: parent)
        print(f"EffectPolicy.evaluate, a branch moved back: {ms:.2f} ms ({decision.reasons[0]})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    _measure(args.repeat)
    _policy(args.repeat)


if __name__ == "__main__":
    main()
