"""A folder of eval reports (``.harness/reports``, or any): the reports in it, the
files that look like reports but cannot be read, and when each run happened.

The index and ``harness eval prune`` read a folder through this module, so both
agree on what a report is and how old it is. One corrupt or foreign file never
hides the others: it is skipped, and the caller says so, naming the file and
the problem.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from harness.core.errors import HarnessError
from harness.evals import EvalReport, load_report

__all__ = [
    "TRACES_SUFFIX",
    "ReportFolder",
    "RunTime",
    "SkippedFile",
    "read_report_folder",
    "run_time",
]

# `harness eval` keeps a report's traces in `<report stem>-traces/` beside it
# (harness.evals._runner.keep_traces).
TRACES_SUFFIX = "-traces"

# A problem is shown on one line of the page: a pydantic error runs to many.
_PROBLEM_CHARS = 300
_PYDANTIC_LINK = "For further information visit"


@dataclass(frozen=True)
class SkippedFile:
    """A ``*.json`` file of the folder that is not a readable eval report, and why."""

    path: Path
    problem: str


@dataclass(frozen=True)
class RunTime:
    """When a report's run happened: its ``created_at``, else the file's mtime.

    ``at`` is always aware: a ``created_at`` without a time zone is ambiguous, so
    the file's time stands in for it, as for none; ``from_file`` says which.
    """

    at: datetime
    from_file: bool

    @property
    def whole(self) -> str:
        """The date and time to the second, in UTC, zone named: ``2026-12-03 19:01:20 UTC``."""
        shown = self.at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"{shown} (file time)" if self.from_file else shown


@dataclass(frozen=True)
class ReportFolder:
    """The readable reports of a folder (by file name) and the files skipped."""

    reports: tuple[tuple[EvalReport, Path], ...]
    skipped: tuple[SkippedFile, ...]


def run_time(report: EvalReport, path: Path | None) -> RunTime | None:
    """When ``report`` (read from ``path``) ran: its own ``created_at`` when it has
    one with a time zone, else ``path``'s modification time; None when neither."""
    if "created_at" in report.model_fields_set:
        try:
            at = datetime.fromisoformat(report.created_at)
        except ValueError:
            at = None
        if at is not None and at.tzinfo is not None:
            return RunTime(at, from_file=False)
    if path is None:
        return None
    try:
        return RunTime(datetime.fromtimestamp(path.stat().st_mtime, UTC), from_file=True)
    except OSError:
        return None


def read_report_folder(folder: Path) -> ReportFolder:
    """Read every ``*.json`` file directly in ``folder``: the eval reports, and the
    other files with why each is not one (not JSON, a trace, a foreign schema, ...)."""
    reports: list[tuple[EvalReport, Path]] = []
    skipped: list[SkippedFile] = []
    for path in sorted(folder.glob("*.json")):
        try:
            reports.append((load_report(path), path))
        except HarnessError as exc:
            skipped.append(SkippedFile(path, _problem(path, exc)))
    return ReportFolder(tuple(reports), tuple(skipped))


def _problem(path: Path, exc: HarnessError) -> str:
    """The error without the file's name (the note names it) and the advice to run
    ``harness eval`` (a folder's note is not about writing one), on one line."""
    text = str(exc)
    text = text.split("; write one with `harness eval", 1)[0]
    for prefix in (f"eval report {path} ", f"{path} "):
        if text.startswith(prefix):
            text = text[len(prefix) :]
            break
    lines = [line.strip() for line in text.splitlines()]
    text = " ".join(line for line in lines if line and not line.startswith(_PYDANTIC_LINK))
    if len(text) > _PROBLEM_CHARS:
        text = text[: _PROBLEM_CHARS - 1] + "…"
    return text
