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
  state dir or remount ``/`` read-write.

Mounts are ordered parent before child (by depth), so a state dir inside the
workdir (the default ``<workdir>/.harness``) is hidden after the workdir is
bound, and a workdir under ``/tmp`` is bound after the private ``/tmp``.
The environment is not on this command line (argv is world-readable in
``/proc``); the caller gives bwrap the scrubbed environment and bwrap passes it on.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["ISOLATION_FLAGS", "bwrap_argv"]

ISOLATION_FLAGS: tuple[str, ...] = (
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    "--tmpfs", "/tmp",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--cap-drop", "ALL",
)  # fmt: skip

_BIND, _HIDE = 0, 1


def bwrap_argv(
    bwrap: Path,
    command: Sequence[str],
    *,
    workdir: Path,
    hidden: Iterable[Path] = (),
    network: bool = False,
    status_fd: int | None = None,
) -> list[str]:
    """The argv that runs ``command`` in the workdir inside a sandbox.

    Args:
        bwrap: the bwrap binary.
        command: what to run inside, e.g. ``["/bin/bash", "-c", text]``.
        workdir: an absolute, resolved directory, bound read-write.
        hidden: absolute, resolved existing directories to cover with a tmpfs.
        network: keep the host network (``HARNESS_BASH_NETWORK=on``).
        status_fd: a descriptor bwrap writes JSON status to (host pid, exit code).
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
    mounts = [(workdir, _BIND), *((path, _HIDE) for path in dict.fromkeys(hidden))]
    for path, kind in sorted(mounts, key=lambda item: (len(item[0].parts), item[1])):
        argv += ["--bind", str(path), str(path)] if kind == _BIND else ["--tmpfs", str(path)]
    argv += ["--chdir", str(workdir), "--", *command]
    return argv


def _resolver_binds() -> list[str]:
    """Read-only binds that keep DNS working when ``/etc/resolv.conf`` points into /run."""
    target = Path("/etc/resolv.conf").resolve()
    if not target.is_relative_to("/run") or target.parent == Path("/run"):
        return []
    return ["--ro-bind-try", str(target.parent), str(target.parent)]
