"""The time a test spends importing modules, kept out of its eval row's duration.

The first row of a process to touch an SDK pays for importing it (1-5 s for
``openai``, ``anthropic``, the agent frameworks); the rows after it pay nothing.
Counted in the row, that cost made ``eval compare --fail-on slower`` fire on two
replays of the same cassettes whenever the first-touching row differed. The clock
wraps ``builtins.__import__`` while an eval row runs and adds up the outermost
imports that loaded a module; the row reports it as ``import_s`` apart from
``duration_s``, and the report shows it once per run.

``importlib.import_module`` does not pass through ``__import__``: modules loaded
that way (harness's lazy names) stay in the duration. They are harness's own and
cheap; an SDK import is an ``import`` statement somewhere.
"""

from __future__ import annotations

import builtins
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType

__all__ = ["ImportClock"]

_ImportFunction = Callable[..., ModuleType]


class ImportClock:
    """Seconds spent loading modules between ``start`` and ``stop`` (outermost imports)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._local = threading.local()
        self._original: _ImportFunction | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Wrap ``__import__`` (once; a clock already running keeps counting)."""
        if self._original is not None:
            return
        self._original = builtins.__import__
        builtins.__import__ = self._timed

    def stop(self) -> None:
        """Give ``__import__`` back, unless something wrapped it after us (leave theirs)."""
        original, self._original = self._original, None
        if original is not None and builtins.__import__ == self._timed:
            builtins.__import__ = original

    def _timed(
        self,
        name: str,
        globals: Mapping[str, object] | None = None,
        locals: Mapping[str, object] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> ModuleType:
        original = self._original or _builtin_import
        depth = getattr(self._local, "depth", 0)
        if depth:
            return original(name, globals, locals, fromlist, level)
        loaded, began = len(sys.modules), time.perf_counter()
        self._local.depth = 1
        try:
            return original(name, globals, locals, fromlist, level)
        finally:
            self._local.depth = 0
            if len(sys.modules) != loaded:  # a cached import costs nothing worth naming
                elapsed = time.perf_counter() - began
                with self._lock:
                    self.seconds += elapsed


# The interpreter's own, for a clock stopped while one of its imports still runs.
_builtin_import: _ImportFunction = builtins.__import__
