"""The effect policy: which changesets apply at once and which wait for a human.

One policy for a bash call's changeset and for what ``write`` or ``edit``
would do. The rule is information loss: a change waits when it destroys
information that cannot be taken back, or reaches outside the workdir.

* Worktree files: the bytes a change destroys (overwritten, truncated or
  deleted content, ``loss``) are measured by size and content. Without an
  undo journal, a change waits when it deletes, empties or replaces a file
  (or symlink), or when the run's lost bytes reach ``loss_bytes`` (summed
  over every call of the run: ``RunTally``, carried in the checkpoint through
  a pause). With an undo journal (``undo_budget`` > 0) those losses apply at
  once, as the journal can restore them, unless the pre-image it must keep
  is larger than its budget. A move inside the workdir is no loss; a move out
  of it, or into a ``.git`` store, is.
* What no journal restores always waits: ``.git`` store damage (``gitstore``,
  ``gitrefs``: refs not moving forward, ``gitindex``: staged content dropped),
  special files.
* Code that runs later (``paths``, ``codepaths``: CI, build and hook files,
  the project's ``HARNESS_SENSITIVE_PATHS``) and setuid or setgid files wait.

Everything else applies at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from harness.effects._changeset import Changeset, FileChange
from harness.effects._codepaths import DEFAULT_CODE_PATHS, CodePaths
from harness.effects._files import read_bytes
from harness.effects._gitindex import staged_content_lost
from harness.effects._gitrefs import moved_ref_reasons
from harness.effects._gitstore import git_store_reasons, store_path
from harness.effects._journal_budget import ApplyBudget, budget_reasons
from harness.effects._loss import lost_bytes
from harness.effects._paths import AfterBytes, hooks_paths, sensitive_change_reason

__all__ = ["DEFAULT_LOSS_BYTES", "EffectDecision", "EffectPolicy", "RunTally"]

# Without an undo journal: bytes of existing content a run may lose without a human
# (about the twenty short lines the old line rule let through).
DEFAULT_LOSS_BYTES = 128
_READ_LIMIT = 1 << 24


@dataclass(frozen=True, slots=True)
class EffectDecision:
    """Whether a changeset waits, why, and the run's lost-byte tally after it.

    Attributes:
        reasons: empty when it applies at once.
        lost_bytes: bytes of existing worktree content this changeset destroys.
        pre_image_bytes: bytes an undo journal must keep to take it back.
        tally: the run's lost bytes after this changeset (0 when the threshold
            was hit: the human is shown the loss).
    """

    reasons: tuple[str, ...]
    lost_bytes: int
    pre_image_bytes: int
    tally: int

    @property
    def pause(self) -> bool:
        return bool(self.reasons)


class RunTally:
    """Removed lines so far, per run, for at most ``max_runs`` recent runs (thread-safe)."""

    def __init__(self, max_runs: int = 256) -> None:
        self._max_runs = max_runs
        self._runs: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, run: str) -> int:
        with self._lock:
            return self._runs.get(run, 0)

    def set(self, run: str, lines: int) -> None:
        with self._lock:
            self._runs.pop(run, None)
            self._runs[run] = lines
            while len(self._runs) > self._max_runs:
                self._runs.popitem(last=False)

    def restore(self, run: str, lines: int) -> None:
        """Take a checkpoint's tally unless this process already counts the run higher."""
        if lines > self.get(run):
            self.set(run, lines)


class EffectPolicy:
    """Judges changesets.

    Args:
        loss_bytes: without a journal, the run's lost bytes that need a human.
        undo_budget: bytes of pre-image the undo journal keeps for one change
            (0: no journal, every deletion or replacement needs a human).
        code_paths: the project's files that run code later.
    """

    def __init__(
        self,
        loss_bytes: int = DEFAULT_LOSS_BYTES,
        *,
        undo_budget: int = 0,
        code_paths: CodePaths = DEFAULT_CODE_PATHS,
    ) -> None:
        self.loss_bytes = loss_bytes
        self.undo_budget = undo_budget
        self.code_paths = code_paths
        self.tally = RunTally()
        self.budget = ApplyBudget()  # journal and apply sizes (journal_budget)

    def evaluate(
        self,
        changeset: Changeset,
        workdir: Path,
        after: AfterBytes,
        *,
        run: str | None = None,
        objects: Path | None = None,
        upper: Path | None = None,
        commit: bool = True,
    ) -> EffectDecision:
        """Judge ``changeset`` against the real ``workdir``.

        Args:
            after: reads a changed path's new bytes.
            run: the run the change belongs to (None: judged alone).
            objects: the layer's ``.git/objects`` (new commits), if any.
            upper: the layer's upper dir (new objects of nested stores, and its
                ``.git/config`` may set hooksPath).
            commit: add the lost bytes to the run's tally (False: only judge).
        """

        def before(path: str) -> bytes | None:
            return read_bytes(workdir / path, _READ_LIMIT)

        reasons: list[str] = []
        moved = {
            c.renamed_from
            for c in changeset.changes
            if c.renamed_from and store_path(c.path) is None
        }
        hooks = hooks_paths(workdir, upper)
        lost: dict[str, int] = {}
        pre_image = 0
        for change in changeset.changes:
            reasons += _always_reasons(change)
            if store_path(change.path) is not None:
                reasons += git_store_reasons(change, before, after)
            elif not _cache(change.path):
                amount = _lost(change, moved, before, after)
                if amount:
                    lost[change.path] = amount
                if change.before is not None and change.path not in moved:
                    pre_image += change.before.size if amount else 0
                if not self.undo_budget:
                    reasons += _loss_reasons(change, moved)
            sensitive = sensitive_change_reason(change, workdir, hooks, after, self.code_paths)
            if sensitive:
                reasons.append(f"touches a sensitive path: {change.path} ({sensitive})")
        reasons += budget_reasons(changeset, upper, self.budget)
        reasons += moved_ref_reasons(
            changeset, workdir, after, lambda store: _objects(store, objects, upper)
        )
        reasons += _index_reasons(changeset, workdir, after, objects, upper)
        removed = sum(lost.values())
        tally = (self.tally.get(run) if run is not None else 0) + removed
        if self.undo_budget:
            tally = 0
            if pre_image > self.undo_budget:
                reasons.insert(
                    0,
                    f"the undo journal cannot keep what this change overwrites or deletes "
                    f"({pre_image} bytes, budget {self.undo_budget})",
                )
        elif removed and tally >= self.loss_bytes:
            reasons.insert(0, _loss_total_reason(lost, tally, self.loss_bytes))
            tally = 0
        if commit and run is not None:
            self.tally.set(run, tally)
        return EffectDecision(_bounded(reasons), removed, pre_image, tally)


def _lost(change: FileChange, moved: set[str], before: AfterBytes, after: AfterBytes) -> int:
    """Bytes of the old content at ``change.path`` that are gone after it."""
    old_state, new_state = change.before, change.after
    if old_state is None or old_state.kind == "dir":
        return 0
    if new_state is None:
        return 0 if change.path in moved else old_state.size
    if new_state.kind != old_state.kind or old_state.kind != "file":
        return old_state.size if old_state.sha256 != new_state.sha256 else 0
    if old_state.sha256 == new_state.sha256:
        return 0
    return lost_bytes(before(change.path), after(change.path), old_state.size)


def _loss_reasons(change: FileChange, moved: set[str]) -> list[str]:
    """Without a journal: a deleted, emptied or replaced file is lost whatever its size."""
    before, after = change.before, change.after
    if before is None or before.kind not in ("file", "symlink"):
        return []
    if after is None and change.path not in moved:
        size = f", {before.size} bytes" if before.kind == "file" else ""
        return [f"deletes {change.path} (existed before{size})"]
    if after is not None and after.kind != before.kind:
        return [f"replaces {change.path} ({before.kind}) with a {after.kind}"]
    if after is not None and before.kind == "file" and before.size and not after.size:
        return [f"empties {change.path} (was {before.size} bytes)"]
    if after is not None and change.binary and before.kind == "file":
        return [f"replaces binary file {change.path} ({before.size} -> {after.size} bytes)"]
    return []


def _always_reasons(change: FileChange) -> list[str]:
    """What no journal takes back: special files; and setid bits, which need a human."""
    before, after = change.before, change.after
    reasons = []
    if after is not None and after.setid and not (before is not None and before.setid):
        reasons.append(f"makes {change.path} setuid/setgid (mode {after.mode:o})")
    if after is not None and after.kind == "special":
        reasons.append(f"creates {change.path}, a special file (FIFO or socket)")
    if before is not None and before.kind == "special" and after != before:
        reasons.append(f"changes {change.path}, a special file (no undo keeps one)")
    return reasons


def _objects(store: str, objects: Path | None, upper: Path | None) -> Path | None:
    if upper is not None:
        return upper / store / "objects"
    return objects if store == ".git" else None


def _index_reasons(
    changeset: Changeset, workdir: Path, after: AfterBytes, objects: Path | None,
    upper: Path | None,
) -> list[str]:  # fmt: skip
    touched = {c.path for c in changeset.changes}
    reasons = []
    for change in changeset.changes:
        where = store_path(change.path)
        if where is None or where.inner != "index":
            continue
        store = where.git_dir

        def read_after(rel: str, store: str = store) -> bytes | None:
            full = f"{store}/{rel}"
            return after(full) if full in touched else read_bytes(workdir / full, _READ_LIMIT)

        old = read_bytes(workdir / change.path, _READ_LIMIT) if change.before else None
        new = after(change.path) if change.after else None
        if (change.before and old is None) or (change.after and new is None):
            reasons.append(f"rewrites a git index the policy cannot read: {change.path}")
            continue
        why = staged_content_lost(
            workdir / store, old, new, read_after, _objects(store, objects, upper)
        )
        if why:
            reasons.append(f"{why}: {change.path}")
    return reasons


_MAX_REASONS = 20


def _bounded(reasons: list[str]) -> tuple[str, ...]:
    """At most ``_MAX_REASONS`` reasons (``rm -rf`` of a big tree has one a file)."""
    unique = list(dict.fromkeys(reasons))
    if len(unique) <= _MAX_REASONS:
        return tuple(unique)
    more = len(unique) - _MAX_REASONS + 1
    return (*unique[: _MAX_REASONS - 1], f"and {more} more (every path is in the changeset)")


def _cache(path: str) -> bool:
    """Byte-code caches, rewritten by every test run: no loss when replaced."""
    return "__pycache__/" in f"/{path}" or path.endswith((".pyc", ".pyo"))


def _loss_total_reason(lost: dict[str, int], total: int, threshold: int) -> str:
    removed = sum(lost.values())
    per_file = ", ".join(f"{path} {amount}" for path, amount in list(lost.items())[:8])
    if len(lost) > 8:
        per_file += f", and {len(lost) - 8} more"
    text = f"overwrites or deletes {removed} bytes of existing content ({per_file})"
    if total != removed:
        text += f", {total} in this run so far"
    return f"large loss: {text} (threshold {threshold} bytes)"
