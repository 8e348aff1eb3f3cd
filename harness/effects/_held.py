"""How a bash call's changeset travels from the tool to whoever decides on it.

The approval middleware puts ``DEFER_KEY`` in the tool input's metadata: the
bash tool then leaves the changes in their layer and returns ``LAYER_KEY``
(the layer id) in its output metadata, and the middleware judges, applies or
holds them. Without ``DEFER_KEY`` (no approval gate for bash) the tool applies
its changes itself, at once.
"""

from __future__ import annotations

from pathlib import Path

from harness.effects._files import read_bytes_at
from harness.effects._paths import AfterBytes

__all__ = ["DEFER_KEY", "LAYER_KEY", "OUTPUT_KEY", "layer_reader"]

DEFER_KEY = "effects_defer"
LAYER_KEY = "effects_layer"
OUTPUT_KEY = "effects_output"


def layer_reader(upper: Path) -> AfterBytes:
    """Reads a path's new bytes from an upper layer (no symlink in it followed)."""

    def read(path: str) -> bytes | None:
        return read_bytes_at(upper, path, 1 << 24)

    return read
