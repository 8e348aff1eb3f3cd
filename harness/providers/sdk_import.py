"""Importing an SDK with the cyclic garbage collector paused.

``import anthropic`` builds some 1,500 modules' worth of classes. Each full
collection the import triggers walks the whole, growing heap (three of them,
about 0.4 s of a 2.5 s import in a pytest worker), and an import makes next to
no garbage for them to find. So the first import of an SDK runs with the
collector off; it is back on (if it was on) as soon as the import ends, and a
module already imported costs a dict lookup.
"""

from __future__ import annotations

import gc
import importlib
import sys
import threading

__all__ = ["preload_sdk"]

_lock = threading.Lock()


def preload_sdk(name: str) -> None:
    """Import ``name`` (e.g. ``"openai"``) if it is not yet, with the collector paused.

    Raises:
        ImportError: the package is not installed.
    """
    if name in sys.modules:
        return
    with _lock:  # two threads pausing and resuming the collector must not interleave
        enabled = gc.isenabled()
        gc.disable()
        try:
            importlib.import_module(name)
        finally:
            if enabled:
                gc.enable()
