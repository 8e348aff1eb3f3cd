"""Killing what a bash call left behind, found by scanning ``/proc``.

Without the sandbox (``HARNESS_BASH_SANDBOX=off``, or ``auto`` with no working
bwrap) there is no PID namespace to tear down, so after the call harness kills
every process that is still running and

* is in the call's process group (``cmd &``, ``nohup cmd &``), or
* is in the call's session (a child that made its own process group), or
* carries the call's tag variable in its environment (``setsid``, ``setsid -f``,
  double forks: they leave the group and the session but keep the environment).

It rescans until two scans in a row find nothing (bounded), so children forked
while their parents were being killed, or caught mid-exec, are caught too.
What it cannot catch: a process that left the session *and* exec'd with a new
environment (``env -i setsid -f cmd``), or one started by another process the
agent reached (``at``, ``systemd-run``, a daemon). Only the sandbox stops
those; ``off`` cannot stop a determined agent.

In the sandbox, the PID namespace does this work; ``wait_for_exit`` waits on a
pidfd of its init (the host pid bwrap reports) so that a call returns only once
the namespace, and everything in it, is gone.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import time

__all__ = ["TAG_VARIABLE", "kill_survivors", "open_pidfd", "wait_for_exit"]

# Neutral name: it must pass the environment filter, and it tells nothing secret.
TAG_VARIABLE = "HX_CALL_TAG"
_MAX_ROUNDS = 200
_ROUND_PAUSE_SECONDS = 0.002
_QUIET_SCANS = 2


def kill_survivors(leader: int, tag: str) -> int:
    """SIGKILL every process of the call (group, session or tag); how many were killed.

    Args:
        leader: pid of the shell started in a new session (its pgid and sid).
        tag: the value of ``TAG_VARIABLE`` in the call's environment.
    """
    marker = f"{TAG_VARIABLE}={tag}".encode()
    killed: set[int] = set()
    quiet = 0
    for _ in range(_MAX_ROUNDS):
        found = _scan(leader, marker)
        if not found:
            # A process caught mid-exec shows an empty environ for a moment:
            # only a second empty scan, a little later, ends the hunt.
            quiet += 1
            if quiet >= _QUIET_SCANS:
                break
        else:
            quiet = 0
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed.update(found)
        time.sleep(_ROUND_PAUSE_SECONDS)
    return len(killed)


def open_pidfd(pid: int) -> int | None:
    """A descriptor that names process ``pid`` for good (no pid reuse); None if it is gone."""
    try:
        return os.pidfd_open(pid)
    except OSError:
        return None  # already gone (or no pidfd: the kernel is older than 5.3)


def wait_for_exit(pidfd: int, timeout: float) -> bool:
    """Wait until the process behind ``pidfd`` (not our child) has exited; False on timeout."""
    ready, _, _ = select.select([pidfd], [], [], timeout)
    return bool(ready)


def _scan(leader: int, marker: bytes) -> list[int]:
    found: list[int] = []
    own = os.getpid()
    if not os.path.isdir("/proc"):
        return found  # not Linux: only the process group is killed
    with os.scandir("/proc") as entries:
        for entry in entries:
            if not entry.name.isdigit() or int(entry.name) == own:
                continue
            if _belongs(entry.path, leader, marker):
                found.append(int(entry.name))
    return found


def _belongs(proc: str, leader: int, marker: bytes) -> bool:
    try:
        with open(f"{proc}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    if fields[0] in (b"Z", b"X"):
        return False  # already dead; its parent reaps it
    if int(fields[2]) == leader or int(fields[3]) == leader:
        return True
    try:
        with open(f"{proc}/environ", "rb") as environ:
            return marker in environ.read().split(b"\0")
    except OSError:
        return False  # another user's process, or it just exited
