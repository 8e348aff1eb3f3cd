"""The effect policy: which changesets apply at once and which wait for a human.

One policy for a bash call's changeset and for what ``write`` or ``edit``
would do. A change waits when it

* deletes or empties a file (or symlink) that existed before, or replaces it
  with something else; a move inside the workdir is not a loss, a move out
  of it is a deletion;
* removes or replaces existing lines so that the run's total reaches the
  threshold (20 by default): replaced lines count as removed, per file, summed
  over every call of the run (``RunTally``, carried in the checkpoint through
  a pause);
* touches a sensitive path (``paths``);
* moves a git ref so that commits are no longer reachable (``gitrefs``);
* makes a file setuid or setgid.

Everything else applies at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from harness.effects.changeset import Changeset, FileChange
from harness.effects.gitrefs import lost_commit_refs, touches_refs
from harness.effects.journal_budget import ApplyBudget, budget_reasons
from harness.effects.paths import AfterBytes, hooks_paths, sensitive_change_reason

__all__ = ["EffectDecision", "EffectPolicy", "RunTally"]


@dataclass(frozen=True, slots=True)
class EffectDecision:
    """Whether a changeset waits, why, and the run's removed-line tally after it.

    Attributes:
        reasons: empty when it applies at once.
        removed_lines: lines this changeset removes or replaces.
        tally: the run's total after this changeset (0 when the threshold was hit:
            the human is shown the deletion).
    """

    reasons: tuple[str, ...]
    removed_lines: int
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
        large_deletion_lines: the run's removed-or-replaced lines that need a human.
    """

    def __init__(self, large_deletion_lines: int = 20) -> None:
        self.large_deletion_lines = large_deletion_lines
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
            upper: the layer's upper dir (its ``.git/config`` may set hooksPath).
            commit: add the removed lines to the run's tally (False: only judge).
        """
        reasons: list[str] = []
        moved = {c.renamed_from for c in changeset.changes if c.renamed_from}
        hooks = hooks_paths(workdir, upper)
        for change in changeset.changes:
            if _git_internal(change.path):
                reasons += _git_change_reasons(change)
            else:
                reasons += self._change_reasons(change, moved)
            sensitive = sensitive_change_reason(change, workdir, hooks, after)
            if sensitive:
                reasons.append(f"touches a sensitive path: {change.path} ({sensitive})")
        reasons += budget_reasons(changeset, upper, self.budget)
        if touches_refs(changeset):
            for ref in lost_commit_refs(changeset, workdir, after, objects):
                reasons.append(f"moves git ref {ref} so that commits are no longer reachable")
        removed = sum(c.removed_lines for c in changeset.changes if not _git_internal(c.path))
        before = self.tally.get(run) if run is not None else 0
        total = before + removed
        tally = total
        if removed and total >= self.large_deletion_lines:
            reasons.insert(
                0, _deletion_reason(changeset, removed, total, self.large_deletion_lines)
            )
            tally = 0
        if commit and run is not None:
            self.tally.set(run, tally)
        return EffectDecision(_bounded(reasons), removed, tally)

    @staticmethod
    def _change_reasons(change: FileChange, moved: set[str]) -> list[str]:
        before, after = change.before, change.after
        reasons: list[str] = []
        if before is not None and before.kind in ("file", "symlink"):
            if after is None and change.path not in moved:
                size = f", {before.size} bytes" if before.kind == "file" else ""
                reasons.append(f"deletes {change.path} (existed before{size})")
            elif after is not None and after.kind != before.kind:
                reasons.append(f"replaces {change.path} ({before.kind}) with a {after.kind}")
            elif after is not None and before.kind == "file" and before.size and not after.size:
                reasons.append(f"empties {change.path} (was {before.size} bytes)")
            elif change.binary and before.kind == "file" and not _cache(change.path):
                new_size = after.size if after is not None else 0
                reasons.append(
                    f"replaces binary file {change.path} ({before.size} -> {new_size} bytes)"
                )
        if after is not None and after.setid and not (before is not None and before.setid):
            reasons.append(f"makes {change.path} setuid/setgid (mode {after.mode:o})")
        if after is not None and after.kind == "special":
            reasons.append(f"creates {change.path}, a special file (FIFO or socket)")
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


def _git_internal(path: str) -> bool:
    return path == ".git" or path.startswith(".git/")


def _git_change_reasons(change: FileChange) -> list[str]:
    """Inside ``.git``: the index, logs and new objects change with every commit and
    are not judged by lines; deleting objects can lose history (``git gc`` too)."""
    before = change.before
    lost = change.after is None and before is not None and before.kind == "file"
    if lost and change.path.startswith(".git/objects/"):
        return [f"deletes git object file {change.path}"]
    if change.after is not None and change.after.setid:
        return [f"makes {change.path} setuid/setgid (mode {change.after.mode:o})"]
    return []


def _deletion_reason(changeset: Changeset, removed: int, total: int, threshold: int) -> str:
    per_file = ", ".join(
        f"{c.path} -{c.removed_lines}"
        for c in changeset.changes
        if c.removed_lines and not _git_internal(c.path)
    )
    text = f"removes or replaces {removed} existing lines ({per_file})"
    if total != removed:
        text += f", {total} in this run so far"
    return f"large deletion: {text} (threshold {threshold})"
