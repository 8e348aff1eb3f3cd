"""Effects: what a tool call changed in the workdir, judged and applied as one.

- ``_changeset``: ``Changeset``, ``FileChange``, ``FileState``, the model.
- ``_reader``: the changeset of an overlay's upper layer (cost of the change).
- ``_policy``: ``EffectPolicy``, which changes wait for a human.
- ``_loss``, ``_gitstore``, ``_gitrefs``, ``_gitindex``, ``_paths``, ``_codepaths``: the
  rules it uses (bytes lost, ``.git`` as a store, refs forward only, staged
  content kept, sensitive paths, the project's files that run code later).
- ``_preview``: ``ChangesetPreview``, the per-file diffs an approver sees.
- ``_beneath``, ``_files``: reading the workdir and a layer with no symlink followed.
- ``_diff``: line diffs within a size and time budget; ``_names``: names quoted for display.
- ``_apply``: ``apply_changeset``, all or nothing, after checking nothing moved.
- ``_layer``: ``LayerStore``, where held changes wait in harness's state dir.
- ``_journal``, ``_journal_undo``: the undo journal every apply, ``write`` and
  ``edit`` records into first, and undoing from it (``harness undo``).
- ``_journal_budget``: the size budgets of keeping and applying; sparse copies.
- ``_held``: the metadata keys between the bash tool and the approval gate.
"""

from harness.effects._apply import ChangedMeanwhile, apply_changeset, stale_paths
from harness.effects._beneath import lstat_beneath
from harness.effects._changeset import (
    Changeset,
    FileChange,
    FileState,
    FsPath,
    shown_path,
    summarize,
)
from harness.effects._codepaths import DEFAULT_CODE_PATHS, CodePaths
from harness.effects._diff import PREVIEW_BUDGET, unified
from harness.effects._files import file_state, line_counts, read_bytes
from harness.effects._held import DEFER_KEY, LAYER_KEY, OUTPUT_KEY, layer_reader
from harness.effects._journal import (
    JournalEntry,
    JournalFile,
    JournalStore,
    UndoJournal,
    journal_origin,
    open_dir_nofollow,
    state_at,
)
from harness.effects._journal_budget import DEFAULT_UNDO_BUDGET, ApplyBudget
from harness.effects._journal_undo import later_entries, undo_entries
from harness.effects._layer import LAYER_ID_PATTERN, Layer, LayerStore
from harness.effects._names import escape_line
from harness.effects._policy import EffectDecision, EffectPolicy, RunTally
from harness.effects._preview import FULL_HINT, ChangesetPreview, changeset_preview
from harness.effects._reader import change_between, read_changeset
from harness.effects._scratch import mount_point_dirs, written_outside
from harness.effects._sensitive_file import load_code_paths
from harness.effects._sensitive_paths import inside, sensitive_path_reason

__all__ = [
    "DEFAULT_CODE_PATHS",
    "DEFAULT_UNDO_BUDGET",
    "DEFER_KEY",
    "FULL_HINT",
    "LAYER_ID_PATTERN",
    "LAYER_KEY",
    "OUTPUT_KEY",
    "PREVIEW_BUDGET",
    "ApplyBudget",
    "ChangedMeanwhile",
    "Changeset",
    "ChangesetPreview",
    "CodePaths",
    "EffectDecision",
    "EffectPolicy",
    "FileChange",
    "FileState",
    "FsPath",
    "JournalEntry",
    "JournalFile",
    "JournalStore",
    "Layer",
    "LayerStore",
    "RunTally",
    "UndoJournal",
    "apply_changeset",
    "change_between",
    "changeset_preview",
    "escape_line",
    "file_state",
    "inside",
    "journal_origin",
    "later_entries",
    "layer_reader",
    "line_counts",
    "load_code_paths",
    "lstat_beneath",
    "mount_point_dirs",
    "open_dir_nofollow",
    "read_bytes",
    "read_changeset",
    "sensitive_path_reason",
    "shown_path",
    "stale_paths",
    "state_at",
    "summarize",
    "undo_entries",
    "unified",
    "written_outside",
]
