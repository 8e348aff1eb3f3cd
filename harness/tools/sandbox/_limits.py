"""Resource limits of a bash call: memory, processes, file size, CPU time, output.

Each is a setting (``HARNESS_BASH_MEMORY_MB``, ``HARNESS_BASH_PROCESSES``,
``HARNESS_BASH_FILE_MB``, ``HARNESS_BASH_CPU_SECONDS``,
``HARNESS_BASH_OUTPUT_MB``; 0 means no limit) and holds on both paths, in and
out of bwrap:

* memory (writable memory, and four times that of address space), file size
  and CPU time are ``setrlimit`` limits, set soft and hard in the child before
  exec, so nothing the call starts can raise them.
  They are per process: a call that starts ten processes may use ten times
  the CPU, which the call's timeout bounds;
* processes: ``RLIMIT_NPROC`` counts every thread of the user, everywhere, so
  the child's limit is what the user runs now plus the setting. The kernel
  never applies it to root (uid 0, in any namespace): there, a pids cgroup
  made for the call holds the count (``ProcessCap``), where harness can make
  one; where it cannot, root's calls have no process limit but the timeout
  (``harness health`` says so);
* output: harness stops reading and kills the call once it has printed more.

A call that hits a limit ends in a tool error saying which limit, its value,
and the setting that raises it (``explain``); harness itself never fails for it.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["ResourceLimits", "user_threads"]

_MB = 1 << 20
# Address space may exceed the memory limit by this much: runtimes reserve far more
# than they write (a JVM's heap, 1/4 of RAM; WebAssembly's guard regions).
_SPACE_FACTOR = 4
# What a process killed by a signal reports through bash: 128 + the signal.
_SIGNAL_EXIT = 128
_NO_MEMORY = (
    "Cannot allocate memory",
    "MemoryError",
    "bad_alloc",
    "out of memory",
    "Out of memory",
    "memory exhausted",
)
# bash's report of a child killed by the signal: "line 1:  4242 CPU time limit exceeded".
_BASH_SAYS_CPU = re.compile(r"\d+ CPU time limit exceeded")
_BASH_SAYS_FSZ = re.compile(r"\d+ File size limit exceeded")
# EAGAIN is what fork and clone report at the limit (pthread_create too).
_NO_PROCESS = ("fork: retry", "Resource temporarily unavailable", "Cannot fork")


@dataclass(frozen=True, slots=True)
class ResourceLimits:
    """Per-call limits; 0 switches one off.

    Attributes:
        memory_mb: writable memory of each process (``RLIMIT_DATA``); its
            address space (``RLIMIT_AS``) may be four times that, room for
            what runtimes reserve and never touch.
        processes: processes and threads the call may add to the user's.
        file_mb: the largest file a process may write (``RLIMIT_FSIZE``).
        cpu_seconds: CPU time of each process (``RLIMIT_CPU``).
        output_mb: bytes of output harness reads before it stops the call.
    """

    memory_mb: int = 8192
    processes: int = 512
    file_mb: int = 4096
    cpu_seconds: int = 300
    output_mb: int = 64

    @property
    def output_bytes(self) -> int | None:
        return self.output_mb * _MB if self.output_mb > 0 else None

    def setter(self) -> Callable[[], None]:
        """What the child runs before exec: the rlimits, computed here in the parent."""
        pairs: list[tuple[int, int, int]] = []
        if self.memory_mb > 0:
            data, space = self.memory_mb * _MB, self.memory_mb * _MB * _SPACE_FACTOR
            pairs += [(resource.RLIMIT_DATA, data, data), (resource.RLIMIT_AS, space, space)]
        if self.file_mb > 0:
            pairs.append((resource.RLIMIT_FSIZE, self.file_mb * _MB, self.file_mb * _MB))
        if self.cpu_seconds > 0:
            # At the soft limit the kernel sends SIGXCPU, which says what happened; a
            # hard limit equal to it would SIGKILL first, which says nothing.
            pairs.append((resource.RLIMIT_CPU, self.cpu_seconds, self.cpu_seconds + 1))
        if self.processes > 0 and os.geteuid() != 0:
            count = _recent_user_threads(os.getuid()) + self.processes
            pairs.append((resource.RLIMIT_NPROC, count, count))
        setrlimit = resource.setrlimit

        def apply() -> None:
            for kind, soft, hard in pairs:
                setrlimit(kind, (soft, hard))

        return apply

    def explain(self, output: str, exit_code: int | None) -> str | None:
        """Which limit the call hit, worded for the model; None when none shows."""
        code = exit_code if exit_code is None or exit_code >= 0 else _SIGNAL_EXIT - exit_code
        if self.cpu_seconds > 0 and (
            code == _SIGNAL_EXIT + signal.SIGXCPU or _BASH_SAYS_CPU.search(output)
        ):
            return self._line(
                f"the CPU time limit of {self.cpu_seconds} s",
                "HARNESS_BASH_CPU_SECONDS",
                "a process was killed when it used that much CPU",
                "Make the command do less per process",
            )
        if self.file_mb > 0 and (
            code == _SIGNAL_EXIT + signal.SIGXFSZ or _BASH_SAYS_FSZ.search(output)
        ):
            return self._line(
                f"the file size limit of {self.file_mb} MB",
                "HARNESS_BASH_FILE_MB",
                "a write past that size was refused",
                "Write smaller files",
            )
        # Words in the output are only a sign when the command failed: a successful
        # ``grep 'out of memory' log`` hit nothing.
        failed = code is None or code != 0
        if self.memory_mb > 0 and failed and any(sign in output for sign in _NO_MEMORY):
            return self._line(
                f"the memory limit of {self.memory_mb} MB per process",
                "HARNESS_BASH_MEMORY_MB",
                "an allocation failed",
                "Make the command use less memory",
            )
        if self.processes > 0 and failed and any(sign in output for sign in _NO_PROCESS):
            return self._line(
                f"the process limit of {self.processes}",
                "HARNESS_BASH_PROCESSES",
                "starting another process or thread failed",
                "Start fewer processes at once",
            )
        return None

    def output_hit(self) -> str:
        return self._line(
            f"the output limit of {self.output_mb} MB",
            "HARNESS_BASH_OUTPUT_MB",
            "the command was stopped (with every process it started) once it printed more",
            "Print less: redirect the output to a file and read parts of it",
        )

    @staticmethod
    def _line(limit: str, setting: str, what: str, advice: str) -> str:
        return f"bash: hit {limit} ({setting}); {what}. {advice}, or raise {setting}."


_COUNT_TTL_SECONDS = 5.0
_counted: dict[int, tuple[float, int]] = {}
_count_lock = threading.Lock()


def _recent_user_threads(uid: int) -> int:
    """``user_threads``, counted at most every few seconds (a scan costs 2-10 ms).

    The user's own count moves by far less than the margin of a call's limit
    in that time; a stale count only shifts the limit by the difference.
    """
    now = time.monotonic()
    with _count_lock:
        seen = _counted.get(uid)
        if seen is not None and now - seen[0] < _COUNT_TTL_SECONDS:
            return seen[1]
    count = user_threads(uid)
    with _count_lock:
        _counted[uid] = (now, count)
    return count


def user_threads(uid: int) -> int:
    """Threads of the processes ``uid`` owns: about what ``RLIMIT_NPROC`` counts.

    The kernel counts by real uid; ``/proc/<pid>`` shows the effective one
    (root for a non-dumpable process), which differs only for a few setuid
    programs. Cheap on purpose, since it runs before every call: one ``stat``
    per process and ``/proc/<pid>/stat`` of the user's own (``status`` costs
    several times more to produce).
    """
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError, ValueError, IndexError):
            if entry.stat().st_uid != uid:
                continue
            with open(f"/proc/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
            total += int(fields[17])  # num_threads, the 20th field of stat(5)
    return total
