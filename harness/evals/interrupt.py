"""Ctrl-C during ``harness eval``: let pytest end its session, keep what it made, say so.

Ctrl-C in a terminal reaches the whole process group: pytest stops its current
test, and the plugin writes the report of the rows that ran as the session ends.
Killing pytest at once (as the runner did) threw that report away, and the user
learnt only "aborted", not whether the cassettes recorded so far were kept.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from harness.core.errors import HarnessError

if TYPE_CHECKING:
    from harness.evals._report import EvalReport

__all__ = ["EvalInterrupted", "stop_gently"]

# pytest had the signal too when it is still running after this long: it is ending
# its session (xdist stops its workers first); a pytest that never got it (only the
# runner was signalled) is sent one.
_OWN_SIGNAL_S = 5.0
# Ending a session takes well under this; past it pytest is killed.
_GRACE_S = 30.0


def stop_gently(process: subprocess.Popen[bytes], report: Path) -> None:
    """Wait for pytest to end after a Ctrl-C, signalling it once if it did not see one."""
    try:
        process.wait(_OWN_SIGNAL_S)
        return
    except subprocess.TimeoutExpired:
        pass
    except KeyboardInterrupt:  # a second Ctrl-C: stop waiting
        process.kill()
        process.wait()
        return
    if not report.exists():
        with contextlib.suppress(OSError):
            process.send_signal(signal.SIGINT)
    try:
        process.wait(_GRACE_S)
    except (subprocess.TimeoutExpired, KeyboardInterrupt):
        process.kill()
        process.wait()


class EvalInterrupted(HarnessError):
    """``harness eval`` was interrupted; the message says what was kept.

    Attributes:
        report: the rows that ran before the interrupt (empty when none did).
        paths: where that report was written (empty: none was).
    """

    def __init__(self, report: EvalReport, paths: tuple[Path, ...]) -> None:
        super().__init__(_kept(report, paths))
        self.report = report
        self.paths = paths


def _kept(report: EvalReport, paths: tuple[Path, ...]) -> str:
    if paths:
        where = ", ".join(str(p) for p in paths)
        said = f"interrupted: report of the {len(report.rows)} row(s) that ran written to {where}"
    else:
        said = "interrupted before any eval finished: no report written"
    if report.record_mode == "none":
        return said
    recorded = [
        row.cassette_relpath or row.cassette_path or row.cassette or "?"
        for row in report.rows
        if row.cassette_sha256 is not None
    ]
    if not recorded:
        return f"{said}; no cassette recorded yet"
    listed = ", ".join(recorded[:3]) + (
        f" and {len(recorded) - 3} more" if len(recorded) > 3 else ""
    )
    again = "; the same command records the rest" if report.record_mode == "once" else ""
    return f"{said}; {len(recorded)} cassette(s) recorded so far are kept ({listed}){again}"
