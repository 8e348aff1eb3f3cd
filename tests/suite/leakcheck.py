"""Run a command with ``$HOME`` and the checkout watched; fail if it wrote there.

CI runs the test suite through it::

    python tests/suite/leakcheck.py -- python3 -m pytest -n auto -q

The command gets a fresh, empty ``HOME`` (and no ``XDG_*_HOME``, so those land
under it too). Before and after, every file under that ``HOME`` and under the
checkout is listed with its size and modification time; any file that appeared,
changed or vanished, and any new folder, is a leak. Bytecode (``__pycache__``,
``*.pyc``), ``.git`` and virtualenvs are not watched: writing them is expected.
The exit status is the command's, or 1 when it passed but leaked.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

__all__ = ["Snapshot", "changes", "main", "snapshot"]

# An entry per file (size, mtime in ns) and per folder (None).
Snapshot = dict[str, tuple[int, int] | None]

_XDG_HOMES = ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


def snapshot(root: Path) -> Snapshot:
    """Every file and folder under ``root``, except bytecode, .git and virtualenvs."""
    entries: Snapshot = {}
    for folder, dirs, files in os.walk(root):
        here = Path(folder)
        dirs[:] = [
            name
            for name in dirs
            if name not in (".git", "__pycache__") and not (here / name / "pyvenv.cfg").exists()
        ]
        for name in dirs:
            entries[(here / name).relative_to(root).as_posix() + "/"] = None
        for name in files:
            if name.endswith(".pyc"):
                continue
            path = here / name
            try:
                stat = path.lstat()
            except FileNotFoundError:  # removed while we looked: the next snapshot says so
                continue
            entries[path.relative_to(root).as_posix()] = (stat.st_size, stat.st_mtime_ns)
    return entries


def changes(before: Snapshot, after: Snapshot) -> list[str]:
    """``new: path``, ``changed: path`` and ``removed: path`` lines, sorted by path."""
    found = []
    for path in sorted(before.keys() | after.keys()):
        if path not in before:
            found.append(f"new: {path}")
        elif path not in after:
            found.append(f"removed: {path}")
        elif before[path] != after[path]:
            found.append(f"changed: {path}")
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--checkout",
        type=Path,
        default=Path(__file__).resolve().parents[2],
        help="the folder to watch besides HOME (default: this repository)",
    )
    parser.add_argument("command", nargs="+", help="the command to run, after --")
    args = parser.parse_args(argv)
    checkout = args.checkout.resolve()
    home = Path(tempfile.mkdtemp(prefix="harness-leakcheck-home-"))
    try:
        env = {k: v for k, v in os.environ.items() if k not in _XDG_HOMES}
        env["HOME"] = str(home)
        watched = {"HOME": home, "checkout": checkout}
        before = {label: snapshot(root) for label, root in watched.items()}
        code = subprocess.run(args.command, env=env, check=False).returncode
        leaks = [
            f"{label}: {line}"
            for label, root in watched.items()
            for line in changes(before[label], snapshot(root))
        ]
    finally:
        shutil.rmtree(home, ignore_errors=True)
    for line in leaks:
        print(f"leakcheck: {line}", file=sys.stderr)
    if leaks:
        print(
            f"leakcheck: the command wrote {len(leaks)} path(s) into HOME or {checkout}; "
            "tests must write under tmp_path only",
            file=sys.stderr,
        )
        return code or 1
    print(f"leakcheck: nothing written into HOME or {checkout}", file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main())
