"""The bwrap command line for one bash call.

What the sandbox looks like from inside:

* ``/`` read-only (``--ro-bind / /``), a fresh ``/dev`` and ``/proc``, and an
  empty private ``/tmp``;
* an empty ``/run``: it holds the host's unix sockets (D-Bus, systemd, docker,
  databases), which a read-only mount does not stop anyone connecting to, and
  a uid-0 peer on the system bus can ask systemd to run anything outside the
  sandbox. With the network on, the resolver's directory under ``/run`` (where
  ``/etc/resolv.conf`` often points) is put back, read-only;
* the workdir bound read-write;
* the hidden directories (the harness state dir, the approval-key dir) covered
  by an empty tmpfs, so nothing in them can be read, listed or planted;
* new PID, IPC and UTS namespaces, and a new network namespace unless network
  is on; ``--die-with-parent``;
* no terminal to type into: bwrap itself is started in a new session (so it
  and everything inside have no controlling terminal) with no tty descriptor,
  and ``--dev`` gives a fresh devpts, so ``TIOCSTI`` has nothing to reach.
  bwrap's own ``--new-session`` would add nothing to that and costs ~5 ms a
  call (measured: 25.4 vs 31.4 ms median under load), so it is not used;
* every capability dropped: when harness runs as root, bwrap would otherwise
  keep them, and root with ``CAP_SYS_ADMIN`` can unmount the tmpfs over the
  state dir or remount ``/`` read-write;
* a seccomp filter (``--seccomp``, see ``seccomp``): no unix socket at all, so
  a host socket anywhere the sandbox can see (the workdir included) is out of
  reach, with the network on or off, and no kernel keyring. Hiding socket
  folders one by one (``/run`` is still emptied) could never be complete.

Mounts are ordered parent before child (by depth), so a state dir inside the
workdir (the default ``<workdir>/.harness``) is hidden after the workdir is
bound, and a workdir under ``/tmp`` is bound after the private ``/tmp``.
The environment is not on this command line (argv is world-readable in
``/proc``); the caller gives bwrap the scrubbed environment and bwrap passes it on.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["ISOLATION_FLAGS", "KERNEL_KNOBS", "OverlayMount", "bwrap_argv"]

# A fresh procfs still shows the host's kernel knobs, and as root (even with
# every capability dropped: the files are root's, mode 0644) /proc/sys is
# writable, e.g. kernel.core_pattern, which the kernel runs as real root outside
# every namespace. They are bound read-only over themselves; /sys is read-only
# already (a submount of the read-only /). Measured with an O_WRONLY open of
# every file under /proc and /sys: without these binds, 777 files in /proc/sys
# and the PSI trigger files in /proc/pressure open for writing; with them, none.
KERNEL_KNOBS: tuple[str, ...] = (
    "/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs", "/proc/pressure",
)  # fmt: skip

ISOLATION_FLAGS: tuple[str, ...] = (
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--ro-bind", "/proc/sys", "/proc/sys",
    *(flag for knob in KERNEL_KNOBS[1:] for flag in ("--ro-bind-try", knob, knob)),
    "--tmpfs", "/tmp",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--cap-drop", "ALL",
)  # fmt: skip

_BIND, _HIDE = 0, 1


@dataclass(frozen=True, slots=True)
class OverlayMount:
    """The workdir as an overlay, and where writes outside it land.

    Attributes:
        upper: the overlay's upper dir (all the call's changes to the workdir).
        work: overlayfs's work dir (same file system as ``upper``).
        scratch: empty harness-owned folders bound over ``/tmp``, ``/dev/shm``
            and each covered dir (keyed by the path they cover), so harness can
            see afterwards whether the call wrote there; their content is never kept.
    """

    upper: Path
    work: Path
    scratch: Mapping[str, Path]


def bwrap_argv(
    bwrap: Path,
    command: Sequence[str],
    *,
    workdir: Path,
    hidden: Iterable[Path] = (),
    network: bool = False,
    status_fd: int | None = None,
    overlay: OverlayMount | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The argv that runs ``command`` in the workdir inside a sandbox.

    Args:
        bwrap: the bwrap binary.
        command: what to run inside, e.g. ``["/bin/bash", "-c", text]``.
        workdir: an absolute, resolved directory, bound read-write.
        hidden: absolute, resolved existing directories to cover with a tmpfs.
        network: keep the host network (``HARNESS_BASH_NETWORK=on``).
        status_fd: a descriptor bwrap writes JSON status to (host pid, exit code).
        overlay: run the workdir as an overlay whose changes land in ``upper``.
        seccomp_fd: a descriptor holding a seccomp program bwrap loads before
            it runs ``command`` (``harness.tools.sandbox._seccomp``).
    """
    argv = [str(bwrap), *ISOLATION_FLAGS]
    if Path("/run").is_dir():  # a tmpfs on a missing mount point would fail on read-only /
        argv += ["--tmpfs", "/run"]
    if network:
        argv += _resolver_binds()
    else:
        argv.append("--unshare-net")
    if status_fd is not None:
        argv += ["--json-status-fd", str(status_fd)]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    mounts = [(workdir, _BIND), *((path, _HIDE) for path in dict.fromkeys(hidden))]
    if overlay is not None:
        mounts += [(Path(dest), _HIDE) for dest in overlay.scratch if dest in ("/tmp", "/dev/shm")]
    for path, kind in sorted(mounts, key=lambda item: (len(item[0].parts), item[1])):
        argv += _mount(path, kind, workdir, overlay)
    argv += ["--chdir", str(workdir), "--", *command]
    return argv


def _mount(path: Path, kind: int, workdir: Path, overlay: OverlayMount | None) -> list[str]:
    if overlay is None:
        return ["--bind", str(path), str(path)] if kind == _BIND else ["--tmpfs", str(path)]
    if kind == _BIND:
        return [
            "--overlay-src", str(workdir),
            "--overlay", str(overlay.upper), str(overlay.work), str(workdir),
        ]  # fmt: skip
    scratch = overlay.scratch.get(str(path))
    return ["--tmpfs", str(path)] if scratch is None else ["--bind", str(scratch), str(path)]


def _resolver_binds() -> list[str]:
    """Read-only binds that keep DNS working when ``/etc/resolv.conf`` points into /run."""
    target = Path("/etc/resolv.conf").resolve()
    if not target.is_relative_to("/run") or target.parent == Path("/run"):
        return []
    return ["--ro-bind-try", str(target.parent), str(target.parent)]
