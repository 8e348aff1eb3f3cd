"""Guarding harness's state dir from a shell that runs without the sandbox.

In the sandbox the state dir is not visible to bash at all. Without it (setting
``bash_sandbox`` off, or ``auto`` with no working bwrap) a command could rewrite
a pending approval or run ``harness approve`` itself, so, as a heuristic:

* any path a command writes, or names, that resolves (against the workdir or
  the ``cd`` directory, ``..`` and symlinks followed) into the state dir;
* any mention of the state dir's path (absolute, or relative to the workdir)
  or of ``HARNESS_STATE_DIR`` in the command text;
* any mention of ``harness approve`` / ``harness reject``;
* writes to paths known only at run time, or relative to a directory known
  only at run time

need approval. This cannot stop a determined agent (a Python script can build
the path at run time); the sandbox can.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from harness.approval._risk_writes import CwdTracker, written_files
from harness.effects import inside
from harness.shell import ResolvedCommand

__all__ = ["StateDirGuard"]

_SELF_APPROVAL = re.compile(r"(?is)harness.*\b(approve|reject)\b")
_LABEL = "shell command touches the harness state dir"


class StateDirGuard:
    """Reasons a command run without the sandbox could reach the state dir."""

    def __init__(self, state_dir: Path, workdir: Path | None) -> None:
        base = workdir.as_posix() if workdir is not None else os.getcwd()
        absolute = posixpath.normpath(posixpath.join(base, state_dir.as_posix()))
        self.roots = tuple(dict.fromkeys((absolute, os.path.realpath(absolute))))
        spellings = set(self.roots)
        if workdir is not None:
            root = posixpath.normpath(workdir.as_posix())
            for real in self.roots:
                if inside(real, root) and real != root:
                    spellings.add(posixpath.relpath(real, root))
        self._mentions = [
            re.compile(r"(?<![\w.-])" + re.escape(s) + r"(?![\w.-])") for s in spellings
        ]

    def text_reasons(self, command: str) -> list[str]:
        reasons: list[str] = []
        if _SELF_APPROVAL.search(command):
            reasons.append(
                "shell command could decide its own approval request "
                "(mentions `harness approve`/`reject` while bash runs without the sandbox)"
            )
        if "HARNESS_STATE_DIR" in command or any(m.search(command) for m in self._mentions):
            reasons.append(f"{_LABEL}: the command names it (bash runs without the sandbox)")
        return reasons

    def command_reasons(self, command: ResolvedCommand, cwd: CwdTracker) -> Iterable[str]:
        if command.name == "harness" and {"approve", "reject"}.intersection(command.argv):
            yield (
                "shell command could decide its own approval request "
                f"({' '.join(command.argv[:3])} while bash runs without the sandbox)"
            )
        for index, word in enumerate(command.argv[1:], start=1):
            if not command.is_dynamic(index) and self._reaches(word, cwd):
                yield f"{_LABEL}: {word}"
        for target in written_files(command):
            if target.dynamic:
                yield (
                    f"{_LABEL}: writes to {target.path}, a path known only at run time "
                    "(bash runs without the sandbox)"
                )
            elif self._reaches(target.path, cwd):
                yield f"{_LABEL}: writes to {target.path}"
            elif cwd.unknown and not posixpath.isabs(target.path):
                yield (
                    f"{_LABEL}: writes to {target.path} in a directory known only at run "
                    "time (bash runs without the sandbox)"
                )

    def _reaches(self, word: str, cwd: CwdTracker) -> bool:
        for text in (word, word.split("=", 1)[-1]):
            if not text:
                continue
            for path in cwd.resolutions(text):
                if not posixpath.isabs(path):
                    path = posixpath.normpath(posixpath.join(os.getcwd(), path))
                candidates = (path, _real(path))
                if any(inside(c, r) for c in candidates for r in self.roots):
                    return True
        return False


def _real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return path
