"""Where ``harness eval`` keeps a run's scratch folder (pytest's basetemp).

Every eval row makes a handful of folders and files: its tmp dir, workspace,
state dir, session and trace folders, the trace itself. On the ext4 disk of a
small cloud VM a ``mkdir`` costs about 0.3 ms and an ``rmdir`` 0.5 ms, against
0.01 ms on tmpfs; at 1,000 rows that was several seconds of a replay, plus the
removal of the whole tree at the end. The scratch is thrown away when the run
ends (the traces worth keeping are copied beside the report), so it belongs in
RAM when the machine has a roomy RAM disk.

The choice, first match wins:

1. ``HARNESS_EVAL_TMPDIR``: that folder (``/tmp`` keeps the scratch on disk);
2. ``TMPDIR`` set: the user chose a temp folder, so the system temp folder;
3. ``/dev/shm`` when it is a writable tmpfs with at least 1 GiB free;
4. the system temp folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.settings import env_value, environment

__all__ = ["MIN_FREE_BYTES", "SCRATCH_VARIABLE", "scratch_parent"]

SCRATCH_VARIABLE = "HARNESS_EVAL_TMPDIR"
MIN_FREE_BYTES = 1 << 30
_RAM_DISK = Path("/dev/shm")


def scratch_parent(
    environ: Mapping[str, str] | None = None,
    *,
    ram_disk: Path = _RAM_DISK,
    mounts: Path = Path("/proc/self/mounts"),
    min_free: int = MIN_FREE_BYTES,
) -> Path | None:
    """The folder to make the run's scratch folder in; None means the system temp folder.

    Raises:
        ConfigurationError: ``HARNESS_EVAL_TMPDIR`` names no writable folder.
    """
    env = environment(environ)
    chosen = env_value("eval_tmpdir", env) or ""
    if chosen:
        folder = Path(chosen).expanduser()
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            what = "is not a writable folder" if folder.exists() else "does not exist"
            raise ConfigurationError(
                f"{SCRATCH_VARIABLE}={chosen} {what}; point it at a folder the eval run "
                "may write its scratch into, or unset it"
            )
        return folder
    if env.get("TMPDIR"):  # the temp folder the user chose
        return None
    return ram_disk if _roomy_tmpfs(ram_disk, mounts, min_free) else None


def _roomy_tmpfs(folder: Path, mounts: Path, min_free: int) -> bool:
    try:
        table = mounts.read_text("utf-8", errors="replace")
        stats = os.statvfs(folder)
    except OSError:
        return False
    target = str(folder)
    # /proc/self/mounts: device, mount point, type, ...; the last line for a point wins.
    kinds = [
        fields[2]
        for fields in map(str.split, table.splitlines())
        if len(fields) > 2 and fields[1] == target
    ]
    if not kinds or kinds[-1] != "tmpfs":
        return False
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    return stats.f_bavail * stats.f_frsize >= min_free
