"""A process-wide patch that nests: installed on the first enter, removed on the last exit.

The network guard and the log filter are both switched on by every active
cassette; cassettes nest and run on several threads, so each keeps one
counter under a lock instead of patching twice or unpatching early.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

__all__ = ["NestedPatch"]


class NestedPatch:
    """``install`` when the first holder enters, ``uninstall`` when the last one leaves."""

    def __init__(self, install: Callable[[], None], uninstall: Callable[[], None]) -> None:
        self._install = install
        self._uninstall = uninstall
        self._lock = threading.Lock()
        self.depth = 0

    @property
    def active(self) -> bool:
        return self.depth > 0

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            if self.depth == 0:
                self._install()
            self.depth += 1
        try:
            yield
        finally:
            with self._lock:
                self.depth -= 1
                if self.depth == 0:
                    self._uninstall()
