"""Eval rows with mutants: what a test's runs did and the row each run leaves.

The run log behind the ``trace`` fixture, the ``workspace``, the ``evidence`` a
verdict reads, the rows collected from reports (cost, spend, sequential epochs,
held conversations), and the mutant runs that show an eval can fail. Names
resolve on first use (see ``harness.testing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.testing.rows.collector import EvalCollector
    from harness.testing.rows.evidence import Evidence
    from harness.testing.rows.runlog import LastTrace, RunLog
    from harness.testing.rows.workspace import Workspace

__all__ = [
    "EvalCollector",
    "Evidence",
    "LastTrace",
    "RunLog",
    "Workspace",
]

_HOME = {
    "EvalCollector": "collector",
    "Evidence": "evidence",
    "LastTrace": "runlog",
    "RunLog": "runlog",
    "Workspace": "workspace",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
