"""Keeping harness's own process unreadable when bash runs without the sandbox.

In the sandbox, bash has its own PID namespace: harness's process is not in its
``/proc`` at all. Without it, a command can read ``/proc/$PPID/environ`` (and
``mem``) of any process of the same user, and root can read every process.
So, before an unsandboxed call:

* harness marks itself non-dumpable (``prctl(PR_SET_DUMPABLE, 0)``): the kernel
  then refuses ``/proc/<pid>/environ``, ``mem``, ``maps`` and ptrace to every
  process without ``CAP_SYS_PTRACE``, i.e. to a same-user, non-root bash. The
  flag is reset on ``exec``, so bash itself stays an ordinary process.
* when harness runs as root, no flag stops a root bash (it holds
  ``CAP_SYS_PTRACE``): if harness's environment holds a secret (a name with
  KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH, e.g. the provider keys,
  the Feishu secret, ``HARNESS_APPROVAL_KEY``), bash refuses to run and says
  why; that holds for ``off`` and for ``auto`` without a working bwrap alike.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import sys
from collections.abc import Mapping

__all__ = ["secret_names", "unsandboxed_exposure"]

_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
_PR_SET_DUMPABLE = 4
_PR_GET_DUMPABLE = 3


def secret_names(environ: Mapping[str, str]) -> list[str]:
    """Names in ``environ`` that look like secrets and hold a value."""
    return sorted(name for name, value in environ.items() if value and _SECRET.search(name))


def unsandboxed_exposure(environ: Mapping[str, str]) -> str | None:
    """Why an unsandboxed bash could read harness's secrets; None when it cannot.

    Marks this process non-dumpable as a side effect (see the module docstring).
    """
    names = secret_names(environ)
    if not sys.platform.startswith("linux"):
        return None if not names else _why(names, "this is not Linux, so /proc cannot be closed")
    if not _make_undumpable():
        if not names:
            return None
        return _why(names, "harness could not mark itself non-dumpable (prctl failed)")
    if os.geteuid() == 0 and names:
        return _why(names, "harness runs as root, and a root process reads any /proc/<pid>/environ")
    return None


def _why(names: list[str], cause: str) -> str:
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return (
        f"harness's environment holds secrets ({shown}) and {cause}, so an unsandboxed "
        "command could read them"
    )


def _make_undumpable() -> bool:
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        if libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
            return False
        return int(libc.prctl(_PR_GET_DUMPABLE, 0, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False
