"""Whether a state dir inside the workdir is one harness made.

The default state dir is ``<workdir>/.harness``. While harness uses it, tool
calls cannot touch it (file tools refuse it, sandboxed bash sees it covered).
But a run whose state dir is elsewhere gives the agent the whole workdir, and
so the chance to plant a ``.harness`` there: fake session memory, a plan, an
old "decision", for a later run on the default state dir to read as its own
history.

So harness marks each state dir inside a workdir it uses with an owner mark:
an HMAC, under the approval key (kept outside the workdir and hidden from
bash), of the folder's real path. A state dir inside the workdir that already
holds sessions but no valid mark is refused, with what to do. A mark copied
from another folder does not verify, and the agent cannot compute one. A
folder without sessions (``harness eval`` keeps its reports in
``.harness/reports``) holds no history and is marked on first use. A state
dir outside the workdir is out of the agent's reach and needs no mark.

Left to the tools' own guards: changing the files of a marked ``.harness``
while the state dir is elsewhere (the mark covers the folder, not each file).
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Callable
from pathlib import Path
from typing import Final

from harness.core.errors import ConfigurationError
from harness.files import atomic_write_text, make_private_dirs

__all__ = ["OWNER_MARK", "check_state_dir_owner", "mark_state_dir"]

OWNER_MARK: Final = "owner.mark"
_LABEL: Final = "state-dir-owner"


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _holds_history(state_dir: Path) -> bool:
    sessions = state_dir / "sessions"
    try:
        with os.scandir(sessions) as entries:
            return any(entries)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True  # unreadable: not something to trust either


def check_state_dir_owner(state_dir: Path, workdir: Path, sign: Callable[[str, str], str]) -> bool:
    """Refuse a foreign state dir inside ``workdir``; say whether it still needs a mark.

    Nothing is written here (``harness health`` and listings create nothing):
    the caller passes a True result to :func:`mark_state_dir` before it first
    writes state.

    Args:
        state_dir: the resolved state dir.
        workdir: the resolved workdir.
        sign: ``(label, text) -> hex HMAC`` under the approval key.

    Raises:
        ConfigurationError: the state dir is inside the workdir, holds
            sessions, and carries no valid owner mark.
    """
    if not _inside(state_dir, workdir):
        return False
    try:
        given = (state_dir / OWNER_MARK).read_text("ascii").strip()
    except (OSError, UnicodeDecodeError):
        given = ""
    if hmac.compare_digest(given, sign(_LABEL, str(state_dir))):
        return False
    if not _holds_history(state_dir):
        return True
    raise ConfigurationError(
        f"state dir {str(state_dir)!r} is inside the workdir and holds sessions, but "
        f"harness did not mark it as its own (no valid {OWNER_MARK}): a tool call may have "
        "planted it while the state dir was elsewhere, to feed this run false history. "
        "Look inside it, then move it away or delete it (or set HARNESS_STATE_DIR to "
        "another folder)"
    )


def mark_state_dir(state_dir: Path, sign: Callable[[str, str], str]) -> None:
    """Write the owner mark of ``state_dir`` (creating it, 0700)."""
    make_private_dirs(state_dir)
    atomic_write_text(state_dir / OWNER_MARK, sign(_LABEL, str(state_dir)) + "\n", private=True)
