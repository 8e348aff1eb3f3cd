"""DecisionLedger: approvals already decided, kept next to the key, outside the state dir.

A signed record can still be replayed: a copy of a pending record saved before
it was approved verifies fine when put back. The ledger closes that hole. At
the moment a decision is claimed, harness creates ``<ledger>/<approval_id>``
with ``O_CREAT|O_EXCL``; a second claim of the same id finds the marker and is
refused, whatever the record file says. The ledger lives beside the key file
(``$XDG_STATE_HOME/harness/decided``), which sandboxed bash cannot see and the
file tools cannot reach.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from harness.core.errors import ApprovalError

__all__ = ["DecisionLedger"]


class DecisionLedger:
    """One marker file per decided approval id.

    Args:
        folder: where the markers live (or a function finding it on first use,
            so a harness that never decides an approval never resolves it);
            created 0700 on first use.
    """

    def __init__(self, folder: Path | Callable[[], Path]) -> None:
        self._folder = folder
        self._lock = threading.Lock()

    @property
    def folder(self) -> Path:
        with self._lock:
            if not isinstance(self._folder, Path):
                self._folder = self._folder()
            return self._folder

    def claim(self, approval_id: str, decision: str) -> None:
        """Record that ``approval_id`` is decided; ``ApprovalError`` if it already was."""
        folder = self.folder
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(
                folder / approval_id,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                0o600,
            )
        except FileExistsError:
            raise ApprovalError(
                f"approval {approval_id!r} was already decided (the decision ledger in "
                f"{folder} says so, whatever its file now shows); an approval can be "
                "decided once, nothing was executed"
            ) from None
        except OSError as exc:
            raise ApprovalError(
                f"cannot record the decision on {approval_id!r} in {folder} "
                f"({exc.strerror or exc}); nothing was executed"
            ) from None
        try:
            os.write(fd, decision.encode("utf-8"))
        finally:
            os.close(fd)

    def decided(self, approval_id: str) -> bool:
        return (self.folder / approval_id).exists()
