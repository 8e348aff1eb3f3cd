"""Judging a bash call's held changeset after it ran: apply at once, or pause on it.

The approval middleware asks the bash tool to leave its changes in their layer
(``effects.DEFER_KEY``); this module takes them from there. The effect policy
decides: nothing worth a human -> the changes are applied and the observation
gains one line naming them; otherwise the call pauses with the changeset as
its preview, the layer stays in harness's state dir, and the signed record
holds the changeset's digest, so approving applies exactly what was shown.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.approval.held_layer import HeldLayer
from harness.core.errors import ApprovalError
from harness.effects import (
    DEFER_KEY,
    LAYER_ID_PATTERN,
    LAYER_KEY,
    Changeset,
    ChangesetPreview,
    EffectDecision,
    EffectPolicy,
    Layer,
    apply_changeset,
    changeset_preview,
    layer_reader,
    summarize,
)
from harness.tools import ToolExecutionContext, ToolExecutionResult

__all__ = [
    "TALLY_KEY",
    "HeldChanges",
    "defer_effects",
    "full_changes_preview",
    "held_changes",
    "settle_now",
]

logger = logging.getLogger("harness.approval")

# Context metadata: a resumed run's removed-line tally, from its checkpoint.
TALLY_KEY = "effects_removed_lines"


@dataclass(frozen=True, slots=True)
class HeldChanges:
    """A call's changes waiting in their layer, and the policy's verdict on them."""

    layer: Layer
    changeset: Changeset
    decision: EffectDecision
    output: str

    def held_layer(self) -> HeldLayer:
        """What the approval record keeps of these changes."""
        return HeldLayer(
            layer_id=self.layer.layer_id,
            root=str(self.layer.root),
            changeset_digest=self.changeset.digest,
            paths=tuple(dict.fromkeys(c.path for c in self.changeset.changes)),
        )

    def preview(self, workdir: Path) -> ChangesetPreview:
        return changeset_preview(
            self.changeset, workdir, layer_reader(self.layer.upper), self.output
        )


def defer_effects(ctx: ToolExecutionContext) -> ToolExecutionContext:
    """``ctx`` with the tool asked to hold its changes for the gate."""
    tool_input = replace(ctx.tool_input, metadata={**ctx.tool_input.metadata, DEFER_KEY: True})
    return replace(ctx, tool_input=tool_input)


def held_changes(
    result: ToolExecutionResult, effects: EffectPolicy, workdir: Path, run: str | None
) -> HeldChanges | None:
    """The changes ``result`` left in a layer, judged; None when it left none."""
    layer_root = result.metadata.get(LAYER_KEY)
    if not isinstance(layer_root, str):
        return None
    root = Path(layer_root)
    if not LAYER_ID_PATTERN.match(root.name):
        return None
    layer = Layer(root.name, root)
    changeset = layer.load_changeset()
    upper = layer.upper
    decision = effects.evaluate(
        changeset,
        workdir.resolve(),
        layer_reader(upper),
        run=run,
        objects=upper / ".git" / "objects",
        upper=upper,
    )
    return HeldChanges(layer, changeset, decision, result.observation)


def settle_now(
    held: HeldChanges, result: ToolExecutionResult, workdir: Path
) -> ToolExecutionResult:
    """Apply changes the policy let through; the observation names them."""
    try:
        apply_changeset(held.changeset, workdir, held.layer.upper)
    except Exception as exc:
        logger.warning("could not apply the changes of a bash call: %s", exc)
        return ToolExecutionResult.error(
            f"{result.observation}\nError: the command's changes could not be applied ({exc})",
            "apply_failed",
            metadata=_without_layer(result.metadata),
        )
    finally:
        held.layer.discard()
    return ToolExecutionResult.completed(
        f"{result.observation}\n{summarize(held.changeset)}",
        metadata=_without_layer(result.metadata),
    )


def full_changes_preview(
    held: HeldLayer, workdir: str | None, output: str | None
) -> ChangesetPreview:
    """The preview of an approval's held changes with nothing cut (``approvals show --full``).

    Built again from the layer, the one the record names, after checking it still
    holds the changes the record signed; the old side is read from the workdir now.

    Raises:
        ApprovalError: the layer is gone or malformed, or holds other changes.
    """
    if workdir is None:
        raise ApprovalError("the approval names no workdir to show its held changes against")
    layer = Layer(held.layer_id, Path(held.root))
    try:
        changeset = layer.load_changeset()
    except Exception as exc:
        raise ApprovalError(
            f"the held changes are gone ({exc}); the approval can no longer be applied"
        ) from exc
    if not held.holds(changeset.digest):
        raise ApprovalError(
            "the held layer no longer holds the changes this approval signed; "
            "approving will refuse it"
        )
    return changeset_preview(
        changeset, Path(workdir), layer_reader(layer.upper), output or "", full=True
    )


def _without_layer(metadata: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metadata.items() if k != LAYER_KEY}
