"""What a call wrote where nothing is kept: private /tmp, /dev/shm, covered dirs.

Each such place is an empty harness-owned folder bound over it for the call;
afterwards a non-empty one is named in the changeset's ``discarded`` notes (so
the approver and the model learn that, say, ``mv data /tmp/`` kept nothing).
Walking them costs what the call wrote there, bounded.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

__all__ = ["mount_point_dirs", "written_outside"]

_MAX_ENTRIES = 10_000


def written_outside(places: Mapping[str, Path], mount_points: Iterable[Path] = ()) -> list[str]:
    """``["/tmp (3 entries, 120 bytes)", ...]`` for each place the call wrote to.

    Folders on the way to ``mount_points`` (bwrap makes them, e.g. for a workdir
    under ``/tmp``) are not the call's writes.
    """
    ancestors = mount_point_dirs(places, mount_points)
    notes: list[str] = []
    for place, folder in places.items():
        entries, size = _measure(folder, ancestors)
        if entries:
            more = "+" if entries >= _MAX_ENTRIES else ""
            notes.append(f"{place} ({entries}{more} entries, {size} bytes)")
    return notes


def mount_point_dirs(places: Mapping[str, Path], mount_points: Iterable[Path]) -> set[str]:
    """The folders bwrap made in the scratch folders to mount ``mount_points`` on."""
    points = [str(point) for point in mount_points]
    found: set[str] = set()
    for place, folder in places.items():
        for point in points:
            if point.startswith(place.rstrip("/") + "/"):
                path = os.path.join(folder, os.path.relpath(point, place))
                found.update(_ancestors(path, str(folder)))
    return found


def _ancestors(path: str, top: str) -> list[str]:
    found = []
    while path.startswith(top + "/"):
        found.append(path)
        path = os.path.dirname(path)
    return found


def _measure(folder: Path, skip: set[str]) -> tuple[int, int]:
    entries = size = 0
    for root, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            if os.path.join(root, name) in skip:
                continue
            entries += 1
            with contextlib.suppress(OSError):
                size += os.lstat(os.path.join(root, name)).st_size if name in files else 0
            if entries >= _MAX_ENTRIES:
                return entries, size
    return entries, size
