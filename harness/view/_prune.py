"""Pruning a folder of eval reports (``harness eval prune --keep N``).

``harness eval`` writes each run's report to ``.harness/reports/eval-<stamp>.json``
and copies the run's trace files beside it, into ``eval-<stamp>-traces/`` (rows
name them by absolute path). The folder grows with every run; pruning keeps the
``keep`` newest reports (by the run time the report states, else the file's
mtime: ``report_folder.run_time``) and deletes the others with the trace files
that only they name.

What is never deleted:
- a file any kept report names (two reports may name one trace);
- a file that is not in one of the folder's own ``*-traces/`` folders (a row may
  name a trace in a temporary state dir, or anything: a report is data, not an
  order to delete), and anything that is not a regular file;
- a ``*.json`` that is not a readable report (corrupt, foreign): its references
  are unknown, so it and every file it might name stay, and the caller says so.

A trace is found at the path its row names, or, when the folder was moved (the
absolute path is stale), by its file name in the report's own ``-traces`` folder.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.evals import EvalReport
from harness.view._report_folder import (
    TRACES_SUFFIX,
    RunTime,
    SkippedFile,
    read_report_folder,
    run_time,
)

__all__ = ["PrunePlan", "PrunedReport", "apply_prune", "plan_prune"]

_OLDEST = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True)
class PrunedReport:
    """A report to delete: its file, when it ran, the trace files that go with it."""

    path: Path
    when: RunTime | None
    artifacts: tuple[Path, ...]


@dataclass(frozen=True)
class PrunePlan:
    """What pruning ``folder`` to ``keep`` reports deletes and what it leaves."""

    folder: Path
    keep: int
    kept: tuple[Path, ...]
    removed: tuple[PrunedReport, ...]
    skipped: tuple[SkippedFile, ...]
    # The size of the files to delete, when planned.
    bytes: int

    @property
    def files(self) -> tuple[Path, ...]:
        """Every file to delete: each report, then its artifacts."""
        return tuple(f for report in self.removed for f in (report.path, *report.artifacts))


def plan_prune(folder: Path, keep: int) -> PrunePlan:
    """Plan keeping the ``keep`` newest reports of ``folder``; nothing is deleted.

    Raises:
        ConfigurationError: ``keep`` is below 1, or ``folder`` is not a folder.
    """
    if keep < 1:
        raise ConfigurationError(
            f"--keep {keep} would delete every report; keep at least 1 (to delete them "
            "all, remove the folder)"
        )
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise ConfigurationError(
            f"the reports folder {folder} {what}; give the folder `harness eval` wrote its "
            "reports to with --reports-dir (default .harness/reports)"
        )
    found = read_report_folder(folder)
    root = folder.resolve()
    timed = [(report, path, run_time(report, path)) for report, path in found.reports]
    timed.sort(key=lambda item: (item[2].at if item[2] else _OLDEST, item[1].name), reverse=True)
    kept, dropped = timed[:keep], timed[keep:]
    protected = {path.resolve() for _, path, _ in kept} | {f.path.resolve() for f in found.skipped}
    for report, path, _ in kept:
        protected.update(_artifacts(report, path, root))
    # An unreadable report's own trace folder: what it names is unknown, so all of it stays.
    theirs = {(f.path.with_name(f.path.stem + TRACES_SUFFIX)).resolve() for f in found.skipped}
    removed: list[PrunedReport] = []
    claimed = {path.resolve() for _, path, _ in dropped}  # deleted as reports, once
    for report, path, when in dropped:
        own = [
            f
            for f in _artifacts(report, path, root)
            if f not in protected and f not in claimed and f.parent not in theirs
        ]
        claimed.update(own)
        removed.append(PrunedReport(path, when, tuple(own)))
    files = [f for report in removed for f in (report.path, *report.artifacts)]
    return PrunePlan(
        folder=folder,
        keep=keep,
        kept=tuple(path for _, path, _ in kept),
        removed=tuple(removed),
        skipped=found.skipped,
        bytes=sum(_size(path) for path in files),
    )


def apply_prune(plan: PrunePlan) -> int:
    """Delete the plan's files, then the trace folders it left empty; the bytes freed.

    A file already gone counts nothing; a report is deleted before its traces, so
    an interrupted prune leaves traces no report names, never a report whose
    traces are gone.
    """
    freed = 0
    for path in plan.files:
        size = _size(path)
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        freed += size
    folders = {f.parent for report in plan.removed for f in report.artifacts}
    for folder in sorted(folders, key=lambda f: len(f.parts), reverse=True):
        with contextlib.suppress(OSError):  # only when empty: other files are not ours
            folder.rmdir()
    return freed


def _artifacts(report: EvalReport, path: Path, root: Path) -> list[Path]:
    """The trace files ``report`` (at ``path``) names that exist in a ``*-traces``
    folder of ``root`` (where ``harness eval`` keeps them, and nowhere else)."""
    own_folder = path.with_name(f"{path.stem}{TRACES_SUFFIX}")
    found: dict[Path, None] = {}
    for row in report.rows:
        for named in row.traces:
            candidate = Path(named)
            if not candidate.is_file():
                candidate = own_folder / candidate.name  # the folder moved since the run
            if not candidate.is_file() or candidate.is_symlink():
                continue
            resolved = candidate.resolve()
            folder = resolved.parent
            if folder.parent == root and folder.name.endswith(TRACES_SUFFIX):
                found[resolved] = None
    return list(found)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
