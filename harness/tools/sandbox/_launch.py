"""Starting one bash call, sandboxed or not, and making sure nothing outlives it.

``ShellLauncher.start`` returns a ``ShellRun``: the process whose stdout the
bash tool reads, plus ``finish`` (after a normal exit) and ``kill`` (on
timeout). Both leave nothing running: in bwrap they wait for the sandbox's PID
namespace to be torn down; unsandboxed they kill the process group and every
process ``reaper`` can attribute to the call (which ran under Landlock, see
``confinement``). Over an overlay, the sandbox's mount namespace is held past
the call's last exit (``take_namespace``), so its unmount can happen later.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import platform
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from harness.core.errors import ToolError
from harness.tools.sandbox._argv import OverlayMount, bwrap_argv
from harness.tools.sandbox._cgroup import ProcessCap, pids_root
from harness.tools.sandbox._confinement import confine
from harness.tools.sandbox._environment import EnvironmentFilter
from harness.tools.sandbox._exposure import make_undumpable
from harness.tools.sandbox._hidden import existing_hidden_dirs
from harness.tools.sandbox._limits import ResourceLimits
from harness.tools.sandbox._reaper import TAG_VARIABLE, kill_survivors, open_pidfd, wait_for_exit
from harness.tools.sandbox._seccomp import (
    install_filter,
    memfd_with,
    program,
    session_keyring_leaver,
)
from harness.tools.sandbox._selection import SandboxChoice

__all__ = ["SCRATCH_PLACES", "OverlayDirs", "ShellLauncher", "ShellRun"]

logger = logging.getLogger(__name__)

_BASH = "/bin/bash"
_KILL_GRACE_SECONDS = 1.0
# Tearing down a PID namespace is the kernel killing and reaping its processes:
# quick, but asynchronous to bwrap's own exit.
_NAMESPACE_EXIT_SECONDS = 5.0


# Places outside the workdir a call may write to, each given its own empty folder.
SCRATCH_PLACES: tuple[str, ...] = ("/tmp", "/dev/shm")


@dataclass(frozen=True, slots=True)
class OverlayDirs:
    """A layer's folders: the overlay's upper and work dirs and a scratch root.

    ``scratch/<n>`` folders are bound over ``/tmp``, ``/dev/shm`` and each
    covered dir, so what a call writes there can be seen (and then dropped).
    """

    upper: Path
    work: Path
    scratch: Path

    def mount(self, covered: Iterable[Path]) -> OverlayMount:
        places = {place: self.scratch / f"{n}" for n, place in enumerate(SCRATCH_PLACES)}
        for n, path in enumerate(covered, start=len(places)):
            places[str(path)] = self.scratch / f"{n}"
        for folder in places.values():
            folder.mkdir(mode=0o700, exist_ok=True)
        return OverlayMount(self.upper, self.work, places)


@dataclass(slots=True)
class ShellRun:
    """A started bash call. Read ``process.stdout``; then ``finish`` or ``kill``."""

    process: subprocess.Popen[bytes]
    sandboxed: bool
    tag: str
    status_fd: int | None = None
    mount: OverlayMount | None = None
    namespace_fd: int | None = None
    cap: ProcessCap | None = None
    _status: bytes = field(default=b"")

    @property
    def sandbox_failed(self) -> bool:
        """After ``finish``: bwrap exited without ever running the command."""
        return self.sandboxed and b'"exit-code"' not in self._status

    def finish(self) -> None:
        """After the shell exited: make sure nothing it started is still running."""
        if self.sandboxed:
            self._read_status()
            self._wait_namespace(self._open_inner())
        else:
            self._kill_group(signal.SIGKILL)
            kill_survivors(self.process.pid, self.tag)

    def kill(self) -> None:
        """On timeout: stop the shell and everything it started."""
        if self.sandboxed:
            self._read_status()
            # The namespace's init is bwrap's child, not ours: name it by a pidfd
            # while bwrap still holds it, so the kill cannot hit a reused pid.
            inner = self._open_inner()
            self._kill_group(signal.SIGKILL)
            if inner is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    signal.pidfd_send_signal(inner, signal.SIGKILL)
            self.process.wait()
            self._wait_namespace(inner)
            return
        self._kill_group(signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(_KILL_GRACE_SECONDS)
        self._kill_group(signal.SIGKILL)
        kill_survivors(self.process.pid, self.tag)

    def close(self) -> None:
        """Close the status pipe, the namespace if nobody took it, and the pids cgroup."""
        if self.cap is not None:
            self.cap.kill_all()  # what left the session with a new environment, too
            self.cap.remove()
            self.cap = None
        if self.status_fd is not None:
            os.close(self.status_fd)
            self.status_fd = None
        if (fd := self.take_namespace()) is not None:
            os.close(fd)

    def take_namespace(self) -> int | None:
        """The held mount namespace, now the caller's to close (None if none is held).

        Closing it unmounts the overlay, which syncs the upper layer's whole file
        system (overlayfs does on every unmount): 3-80 ms on a busy disk, measured.
        The call's processes are all gone by then, so that can wait until after
        the changeset is read, off the call's path; the layer must not be reused
        before (overlayfs refuses an upper dir still mounted).
        """
        fd, self.namespace_fd = self.namespace_fd, None
        return fd

    def hold_namespace(self) -> None:
        """Keep the sandbox's mount namespace (and its overlay) after the call's last exit."""
        pid = self._await_inner_pid()
        if pid is None:
            return
        with contextlib.suppress(OSError):
            self.namespace_fd = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)

    def _await_inner_pid(self) -> int | None:
        """bwrap reports the namespace's init right after cloning it; wait for that line."""
        deadline = time.monotonic() + _NAMESPACE_EXIT_SECONDS
        while self.status_fd is not None and self._inner_pid() is None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.status_fd], [], [], left)[0]:
                return None
            try:
                chunk = os.read(self.status_fd, 4096)
            except BlockingIOError:
                continue
            if not chunk:
                return None  # bwrap exited before cloning: nothing to hold
            self._status += chunk
        return self._inner_pid()

    def _kill_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    def _read_status(self) -> None:
        if self.status_fd is None:
            return
        with contextlib.suppress(BlockingIOError):
            while chunk := os.read(self.status_fd, 4096):
                self._status += chunk

    def _inner_pid(self) -> int | None:
        for line in self._status.splitlines():
            with contextlib.suppress(ValueError, AttributeError):
                pid = json.loads(line).get("child-pid")
                if isinstance(pid, int):
                    return pid
        return None

    def _open_inner(self) -> int | None:
        pid = self._inner_pid()
        return None if pid is None else open_pidfd(pid)

    @staticmethod
    def _wait_namespace(pidfd: int | None) -> None:
        if pidfd is None:
            return
        try:
            wait_for_exit(pidfd, _NAMESPACE_EXIT_SECONDS)
        finally:
            os.close(pidfd)


class ShellLauncher:
    """Builds and starts ``bash -c COMMAND`` the way the choice says.

    On both paths the child gets the ``limits`` (and, as root, a pids cgroup
    for the process limit), a new session keyring and the seccomp filter (no
    unix socket, no keyring: see ``seccomp``).

    Args:
        choice: sandboxed (``choice.bwrap``) or not.
        env_filter: the variables bash may see.
        network: keep the network in the sandbox.
        limits: resource limits of each call.
    """

    def __init__(
        self,
        choice: SandboxChoice,
        env_filter: EnvironmentFilter,
        *,
        network: bool = False,
        limits: ResourceLimits | None = None,
    ) -> None:
        self.choice = choice
        self.env_filter = env_filter
        self.network = network
        self.limits = limits if limits is not None else ResourceLimits()
        self._filter = program()
        self._pids_root = pids_root() if os.geteuid() == 0 and self.limits.processes else None
        if os.geteuid() == 0 and self.limits.processes and self._pids_root is None:
            logger.warning(
                "harness runs as root, where the kernel ignores the process limit "
                "(HARNESS_BASH_PROCESSES), and no pids cgroup can be made for bash calls "
                "here: only the timeout bounds how many processes a call starts"
            )

    def start(
        self,
        command: str,
        workdir: Path,
        environ: Mapping[str, str],
        hidden: Iterable[Path] = (),
        overlay: OverlayDirs | None = None,
    ) -> ShellRun:
        """Start the call; a process that cannot start is a ``ToolError``.

        Args:
            command: the bash command text.
            workdir: where it runs (bound read-write in the sandbox).
            environ: the harness environment, filtered before bash sees it.
            hidden: directories the sandbox covers (state dir, approval-key dir).
            overlay: run the workdir as an overlay over these layer folders
                (only when ``choice.overlay``); the call's changes stay there.
        """
        tag = secrets.token_hex(8)
        env = {**self.env_filter.apply(environ), TAG_VARIABLE: tag}
        raw = self._filter
        if raw is None:
            raise ToolError(
                f"bash refused to run: harness has no system-call filter for this machine "
                f"({platform.machine()}; it knows x86_64 and aarch64), so bash could reach "
                "other services' unix sockets and harness's keyrings. Nothing was run.",
                error_type="sandbox_unavailable",
            )
        cap = self._cap(tag)
        try:
            run = self._start(command, workdir, env, environ, hidden, overlay, tag, raw, cap)
        except BaseException:
            if cap is not None:
                cap.remove()
            raise
        run.cap = cap
        return run

    def _cap(self, tag: str) -> ProcessCap | None:
        if self._pids_root is None:
            return None
        # bwrap, its init and bash's own plumbing come on top of what the call may start.
        return ProcessCap.make(self._pids_root, f"harness-bash-{tag}", self.limits.processes + 4)

    def _start(
        self,
        command: str,
        workdir: Path,
        env: dict[str, str],
        environ: Mapping[str, str],
        hidden: Iterable[Path],
        overlay: OverlayDirs | None,
        tag: str,
        raw: bytes,
        cap: ProcessCap | None,
    ) -> ShellRun:
        steps: list[Callable[[], None] | None] = [None if cap is None else cap.join]
        steps += [self.limits.setter(), session_keyring_leaver()]
        bwrap = self.choice.bwrap
        if bwrap is None:
            confinement = confine(workdir, hidden, environ, network=self.network)
            make_undumpable()
            # Capabilities go and no_new_privs is set in restrict; the filter needs both.
            steps += [confinement.restrict, install_filter(raw)]
            try:
                process = self._popen([_BASH, "-c", command], workdir, env, (), _chain(steps))
            finally:
                confinement.close()
            return ShellRun(process, False, tag)
        root = workdir.resolve()
        covered = existing_hidden_dirs(hidden, root)
        mount = None if overlay is None else overlay.mount(covered)
        read_fd, write_fd = os.pipe()
        filter_fd = memfd_with(raw)
        try:
            argv = bwrap_argv(
                bwrap,
                [_BASH, "-c", command],
                workdir=root,
                hidden=covered,
                network=self.network,
                status_fd=write_fd,
                overlay=mount,
                seccomp_fd=filter_fd,
            )
            process = self._popen(argv, root, env, (write_fd, filter_fd), _chain(steps))
        except BaseException:
            os.close(read_fd)
            raise
        finally:
            os.close(write_fd)
            os.close(filter_fd)
        os.set_blocking(read_fd, False)
        run = ShellRun(process, True, tag, read_fd, mount)
        if mount is not None:
            run.hold_namespace()
        return run

    def _popen(
        self,
        argv: list[str],
        workdir: Path,
        env: dict[str, str],
        fds: tuple[int, ...],
        restrict: Callable[[], None] | None = None,
    ) -> subprocess.Popen[bytes]:
        try:
            return subprocess.Popen(
                argv,
                cwd=workdir,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                # No controlling terminal for bash or bwrap and all they start:
                # this is what keeps TIOCSTI away from the user's terminal.
                start_new_session=True,
                env=env,
                pass_fds=fds,
                # Landlock applies to the calling thread and what it starts: the
                # child must restrict itself, between fork and exec.
                preexec_fn=restrict,
            )
        except OSError as exc:
            raise ToolError(
                f"could not start {argv[0]}: {exc}",
                error_type="sandbox_failed" if fds else "bash_unavailable",
            ) from exc
        except subprocess.SubprocessError as exc:
            # The child's own set-up failed (the filter, a limit, the cgroup): the
            # confinement does not hold, so nothing may run.
            raise ToolError(
                f"bash refused to run: its confinement could not be set up ({exc}). "
                "Nothing was run.",
                error_type="sandbox_unavailable",
            ) from exc


def _chain(steps: list[Callable[[], None] | None]) -> Callable[[], None]:
    """One function running ``steps`` in order (in the child, between fork and exec)."""
    todo = [step for step in steps if step is not None]

    def run() -> None:
        for step in todo:
            step()

    return run
