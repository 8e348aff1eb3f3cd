"""Where a bash call's changes wait: a layer folder in harness's state dir.

``state_dir/layers/<id>/`` holds ``upper`` and ``work`` (the overlay's), the
empty folders bound over ``/tmp``, ``/dev/shm`` and each covered state dir
(so harness can tell afterwards whether the call wrote there), and, once the
call is over, ``changeset.json``. The agent never sees any of it: the state dir
is covered in every sandboxed call. A layer lives until its changes are
applied or discarded; one whose approval expired is removed by ``sweep``.

With the default state dir (``<workdir>/.harness``) the upper dir lies inside
the overlay's lower dir. The kernel mounts that, and traps lookups that reach a
layer's root from inside the overlay (``ELOOP``); none can, since the cover
mount over the state dir comes first.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ToolError
from harness.effects._changeset import Changeset
from harness.effects._journal import ORIGIN_FILE, JournalOrigin
from harness.effects._layer_ids import LAYER_ID_PATTERN
from harness.files import atomic_write_text

__all__ = ["LAYER_ID_PATTERN", "Layer", "LayerStore"]


@dataclass(frozen=True, slots=True)
class Layer:
    """One call's layer folder."""

    layer_id: str
    root: Path

    @property
    def upper(self) -> Path:
        return self.root / "upper"

    @property
    def work(self) -> Path:
        return self.root / "work"

    def scratch(self, name: str) -> Path:
        """An empty folder bound over a place whose writes are discarded (tmp, shm, ...)."""
        return self.root / "scratch" / name

    def save_changeset(self, changeset: Changeset) -> None:
        atomic_write_text(self.root / "changeset.json", changeset.model_dump_json())

    def save_origin(self, origin: JournalOrigin) -> None:
        """Name the call whose changes these are: whoever applies them journals them so."""
        atomic_write_text(self.root / ORIGIN_FILE, origin.model_dump_json(), durable=False)

    def load_changeset(self) -> Changeset:
        path = self.root / "changeset.json"
        try:
            return Changeset.model_validate_json(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ToolError(
                f"the held changes of {self.layer_id} cannot be read ({exc}); nothing applied",
                error_type="layer_missing",
            ) from exc

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def reset(self, keep: Collection[str] = ()) -> bool:
        """Empty ``upper`` and every scratch folder, for the next call; False if it failed.

        Costs what the last call left there: a layer is reused rather than made
        and removed each call (folder creation and removal dominate an overlay
        call's cost on a busy disk). ``keep``: folders bwrap made as mount points
        (e.g. the way to a workdir under ``/tmp``); they stay, emptied of the rest.
        """
        try:
            (self.root / "changeset.json").unlink(missing_ok=True)
            (self.root / ORIGIN_FILE).unlink(missing_ok=True)
            for folder in (self.upper, *(self.root / "scratch").iterdir()):
                _empty(folder, keep)
            os.utime(self.root)  # in use now: ``sweep`` spares young layers
        except OSError:
            return False
        return True


def _empty(folder: Path | str, keep: Collection[str]) -> None:
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            if entry.path in keep:
                _empty(entry.path, keep)
            else:
                shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)


class LayerStore:
    """Makes, finds and sweeps layers under ``state_dir/layers``."""

    def __init__(self, state_dir: Path) -> None:
        self.base = state_dir / "layers"

    def create(self) -> Layer:
        import secrets

        layer_id = f"lyr_{secrets.token_hex(8)}"
        root = self.base / layer_id
        try:
            self.base.mkdir(mode=0o700, parents=True, exist_ok=True)
            root.mkdir(mode=0o700)
            for name in ("upper", "work", "scratch"):
                (root / name).mkdir(mode=0o700)
        except OSError as exc:
            raise ToolError(
                f"cannot create the overlay layer under {self.base}: {exc}",
                error_type="sandbox_unavailable",
            ) from exc
        return Layer(layer_id, root)

    def get(self, layer_id: str) -> Layer:
        if not LAYER_ID_PATTERN.match(layer_id):
            raise ToolError(f"layer id {layer_id!r} is malformed", error_type="layer_missing")
        root = self.base / layer_id
        if not root.is_dir():
            raise ToolError(
                f"the held changes {layer_id} are gone (expired or already decided); "
                "nothing was applied",
                error_type="layer_missing",
            )
        return Layer(layer_id, root)

    def sweep(self, keep: set[str], older_than_seconds: float = 3600.0) -> int:
        """Remove layers not in ``keep`` (held by a pending approval); how many.

        Only layers older than ``older_than_seconds`` go: a younger one may be a
        call still running (a call lasts at most its timeout, 600 s by default).
        """
        try:
            names = os.listdir(self.base)
        except OSError:
            return 0
        removed = 0
        limit = time.time() - older_than_seconds
        for name in names:
            if not LAYER_ID_PATTERN.match(name) or name in keep:
                continue
            try:
                young = os.lstat(self.base / name).st_mtime > limit
            except OSError:
                continue
            if not young:
                shutil.rmtree(self.base / name, ignore_errors=True)
                removed += 1
        return removed
