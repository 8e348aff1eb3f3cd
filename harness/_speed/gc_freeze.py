"""Keep what a suite imports out of the garbage collector's way during an eval run.

The first replayed rows import both SDKs: tens of thousands of long-lived
objects (classes, pydantic validators, module dicts). Every full collection
walks all of them, about 0.14 s each on a 2-core machine, six times in a
1,000-row run; nothing among them ever becomes garbage. ``gc.freeze()`` moves
every object that exists at that moment where the collector no longer looks.

So when a test has imported many modules (the SDKs arrive inside the first
row's fixtures, not at collection), the objects alive after it are frozen.
Only eval runs (``--harness-report`` or ``--harness-mutants``, which is what
``harness eval`` runs) do this: a plain ``pytest`` keeps the interpreter's
defaults. A cycle that is garbage at that moment is kept, not freed: one
test's leftovers, once or twice per process.

Eval runs also collect the youngest generation less often
(:data:`EVAL_THRESHOLDS`). With the default threshold of 700 a 1,002-row
replay ran about 990 young, 89 middle and 7 full collections, 1.1-1.4 s in
all; at 10,000 it runs 125, 10 and 1, 0.6-0.7 s, at the same peak memory (a
row leaves about 260 objects of cyclic garbage). The thresholds are put back
when the run ends, so pytest runs inside a test (``pytester``) leave the
outer one as it was.
"""

from __future__ import annotations

import gc
import sys

__all__ = ["EVAL_THRESHOLDS", "FREEZE_AFTER_MODULES", "ImportFreezer"]

# Collection thresholds of an eval run (see the module doc); gc's defaults are
# (700, 10, 10).
EVAL_THRESHOLDS = (10_000, 10, 10)

# New modules since the last freeze that make another one worth it: both SDKs
# bring about 2,500; a test importing a helper or two does not count.
FREEZE_AFTER_MODULES = 300


class ImportFreezer:
    """Freezes the heap once a test has imported many modules (see the module doc)."""

    def __init__(self, threshold: int = FREEZE_AFTER_MODULES) -> None:
        self.threshold = threshold
        self._modules = len(sys.modules)
        self.freezes = 0
        self._thresholds: tuple[int, ...] | None = None

    def start(self) -> None:
        """Collect young objects less often until :meth:`stop` (the run's thresholds)."""
        if self._thresholds is None:
            self._thresholds = gc.get_threshold()
            gc.set_threshold(*EVAL_THRESHOLDS)

    def stop(self) -> None:
        """Put the collector's thresholds back as :meth:`start` found them."""
        if self._thresholds is not None:
            gc.set_threshold(*self._thresholds)
            self._thresholds = None

    def after_test(self) -> None:
        count = len(sys.modules)
        if count - self._modules < self.threshold:
            return
        self._modules = count
        gc.freeze()
        self.freezes += 1
