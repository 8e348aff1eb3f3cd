"""The held overlay layer of a paused bash call, as the approval record names it.

A bash call that ran over an overlay is not re-run on approval: its changes
wait in a layer folder in harness's state dir, and approving applies them.
``HeldLayer`` is that layer on the signed record: its id, its folder, the
digest of the changeset the approver was shown and the paths it changes. It
is validated when read, so a record naming a malformed layer (an id that is
not ``lyr_`` and 16 hex digits, a folder whose name is not the id, a digest
that is not sha256) is refused before anything is looked up.
"""

from __future__ import annotations

import hmac
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, model_validator

from harness.effects import LAYER_ID_PATTERN, FsPath

__all__ = ["HeldLayer"]


class HeldLayer(BaseModel):
    """A paused call's changes waiting in their layer.

    Attributes:
        layer_id: the layer's id, also the last part of ``root``.
        root: the layer folder (in the state dir's ``layers``).
        changeset_digest: ``Changeset.digest`` of what the approver was shown;
            the apply refuses a layer whose changeset hashes otherwise.
        paths: the workdir paths the changeset touches (empty for a record
            upgraded from version 2, which did not keep them); any name
            the file system allows, bytes that are not UTF-8 included.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer_id: str = Field(pattern=LAYER_ID_PATTERN.pattern)
    root: str
    changeset_digest: str = Field(pattern=r"^[0-9a-f]{64}$")
    paths: tuple[FsPath, ...] = ()

    @model_validator(mode="after")
    def _root_is_the_layer(self) -> HeldLayer:
        if Path(self.root).name != self.layer_id:
            raise ValueError(
                f"held layer root {self.root!r} is not the folder of layer {self.layer_id!r}"
            )
        return self

    def holds(self, digest: str) -> bool:
        """Whether ``digest`` is the digest the approver was shown (constant time)."""
        return hmac.compare_digest(digest, self.changeset_digest)
