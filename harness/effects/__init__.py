"""Effects: what a tool call changed in the workdir, judged and applied as one.

- ``changeset``: ``Changeset``, ``FileChange``, ``FileState``, the model.
- ``reader``: the changeset of an overlay's upper layer (cost of the change).
- ``policy``: ``EffectPolicy``, which changes wait for a human.
- ``loss``, ``gitstore``, ``gitrefs``, ``gitindex``, ``paths``, ``codepaths``: the
  rules it uses (bytes lost, ``.git`` as a store, refs forward only, staged
  content kept, sensitive paths, the project's files that run code later).
- ``preview``: ``ChangesetPreview``, the per-file diffs an approver sees.
- ``beneath``, ``files``: reading the workdir and a layer with no symlink followed.
- ``diff``: line diffs within a size and time budget; ``names``: names quoted for display.
- ``apply``: ``apply_changeset``, all or nothing, after checking nothing moved.
- ``layer``: ``LayerStore``, where held changes wait in harness's state dir.
- ``journal``, ``journal_undo``: the undo journal every apply, ``write`` and
  ``edit`` records into first, and undoing from it (``harness undo``).
- ``journal_budget``: the size budgets of keeping and applying; sparse copies.
- ``held``: the metadata keys between the bash tool and the approval gate.
"""

from harness.effects.apply import ChangedMeanwhile, apply_changeset, stale_paths
from harness.effects.changeset import Changeset, FileChange, FileState, summarize
from harness.effects.held import DEFER_KEY, LAYER_KEY, OUTPUT_KEY, layer_reader
from harness.effects.layer import Layer, LayerStore
from harness.effects.policy import EffectDecision, EffectPolicy, RunTally
from harness.effects.preview import ChangesetPreview, changeset_preview
from harness.effects.reader import change_between, read_changeset

__all__ = [
    "DEFER_KEY",
    "LAYER_KEY",
    "OUTPUT_KEY",
    "ChangedMeanwhile",
    "Changeset",
    "ChangesetPreview",
    "EffectDecision",
    "EffectPolicy",
    "FileChange",
    "FileState",
    "Layer",
    "LayerStore",
    "RunTally",
    "apply_changeset",
    "change_between",
    "changeset_preview",
    "layer_reader",
    "read_changeset",
    "stale_paths",
    "summarize",
]
