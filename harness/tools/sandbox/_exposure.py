"""Keeping harness's own process unreadable when bash runs without the sandbox.

In the sandbox, bash has its own PID namespace: harness's process is not in its
``/proc`` at all. Without it, a command could read ``/proc/$PPID/environ`` (and
``mem``) of harness: the provider keys, the Feishu secret,
``HARNESS_APPROVAL_KEY``. Two locks keep that shut, either one enough:

* the Landlock domain each unsandboxed call runs under (see ``confinement``), with
  every capability dropped: no ptrace-class access to a process outside it;
* harness marks itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): the kernel
  then refuses ``environ``, ``mem``, ``maps`` and ptrace to every process
  without ``CAP_SYS_PTRACE``. The flag is reset on ``exec``, so bash itself
  stays an ordinary process.
"""

from __future__ import annotations

import ctypes
import re
from collections.abc import Mapping

__all__ = ["make_undumpable", "secret_names"]

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
_PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3


def secret_names(environ: Mapping[str, str]) -> list[str]:
    """Names in ``environ`` that look like secrets and hold a value."""
    return sorted(name for name, value in environ.items() if value and _SECRET.search(name))


def make_undumpable() -> bool:
    """Mark this process non-dumpable; True when the kernel confirms it."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return False
        return int(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
