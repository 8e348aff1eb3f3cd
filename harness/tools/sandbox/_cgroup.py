"""A pids cgroup per bash call, for root: the process limit the kernel's rlimit skips.

``RLIMIT_NPROC`` is never enforced for uid 0, so as root a fork bomb in a bash
call would run until the timeout, filling the host's process table. Where
harness can make a cgroup under its own in the pids hierarchy (cgroup v1's
``pids`` controller, or v2 with ``pids`` enabled for its cgroup's children),
each call gets one with ``pids.max`` set: the child joins it before exec, so
every process the call starts is counted, and forks past the limit fail with
``EAGAIN``. The cgroup also names every process of the call, so ``kill_all``
ends those that left the session with a new environment too.

Where no such cgroup can be made, ``ProcessCap.make`` returns None (and the
reason is in ``unavailable``); the call runs with the timeout as its only bound.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["ProcessCap", "pids_root"]

_RMDIR_TRIES = 50
_RMDIR_PAUSE_SECONDS = 0.01


def pids_root() -> Path | None:
    """The folder under which harness may make pids cgroups; None when there is none."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
        groups = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        fields = line.split(" ")
        if " - " not in line:
            continue
        tail = line.split(" - ", 1)[1].split(" ")
        if len(tail) < 3 or len(fields) < 5:
            continue
        kind, options = tail[0], tail[2].split(",")
        if kind == "cgroup" and "pids" in options:
            own = _own_path(groups, "pids")
            if own is not None:
                return _writable(Path(fields[4]) / own.lstrip("/"))
        if kind == "cgroup2":
            own = _own_path(groups, "")
            if own is None:
                continue
            folder = Path(fields[4]) / own.lstrip("/")
            with contextlib.suppress(OSError):
                if "pids" in (folder / "cgroup.subtree_control").read_text().split():
                    return _writable(folder)
    return None


class ProcessCap:
    """One call's pids cgroup: ``join`` runs in the child; ``remove`` after the call."""

    def __init__(self, folder: Path, procs_fd: int) -> None:
        self.folder = folder
        self._procs_fd = procs_fd

    @classmethod
    def make(cls, root: Path, name: str, limit: int) -> ProcessCap | None:
        """A new cgroup ``name`` under ``root`` allowing ``limit`` processes; None on failure."""
        folder = root / name
        try:
            folder.mkdir(mode=0o700)
        except OSError:
            return None
        try:
            (folder / "pids.max").write_text(str(limit))
            fd = os.open(folder / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            return None
        return cls(folder, fd)

    @property
    def join(self) -> Callable[[], None]:
        """Move the calling (child) process into the cgroup; safe between fork and exec."""
        fd, write = self._procs_fd, os.write

        def join() -> None:
            write(fd, b"0")

        return join

    def members(self) -> list[int]:
        with contextlib.suppress(OSError, ValueError):
            text = (self.folder / "cgroup.procs").read_text()
            return [int(pid) for pid in text.split()]
        return []

    def kill_all(self) -> None:
        """SIGKILL every process still in the cgroup, until it is empty (bounded)."""
        for _ in range(_RMDIR_TRIES):
            pids = self.members()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(_RMDIR_PAUSE_SECONDS)

    def remove(self) -> None:
        """Close the descriptor and remove the (emptied) cgroup; a busy one is left, logged."""
        if self._procs_fd >= 0:
            os.close(self._procs_fd)
            self._procs_fd = -1
        for _ in range(_RMDIR_TRIES):
            try:
                self.folder.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(_RMDIR_PAUSE_SECONDS)  # zombies not yet reaped by their parent


def _own_path(groups: list[str], controller: str) -> str | None:
    for line in groups:
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        names = parts[1].split(",") if parts[1] else [""]
        if controller in names:
            return parts[2]
    return None


def _writable(folder: Path) -> Path | None:
    return folder if folder.is_dir() and os.access(folder, os.W_OK) else None
