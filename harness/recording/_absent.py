"""Skip vcrpy's repeated search for HTTP libraries this process does not have.

Every cassette vcrpy enters builds its patchers afresh, and for each library it
can patch (requests, urllib3, boto3, httplib2, tornado, aiohttp, httpx and its
plugins, ...) it tries ``import``. A library that is not installed fails that
import, and Python does not remember the failure: the next cassette searches
every ``sys.path`` entry for it again. For a suite of small cassettes that
search was a third of the cost of entering one.

:func:`known_absent_skipped` remembers, per ``sys.path`` (and working
directory), the top-level names that failed, and while a cassette is being
entered (only then) answers a second import of one of them at once with the
same ``ModuleNotFoundError``.
A change of ``sys.path`` forgets them, so a library made importable later is
found again; nothing outside the block is affected.
"""

from __future__ import annotations

import importlib.abc
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from types import ModuleType
from typing import Any

__all__ = ["known_absent_skipped"]

_lock = threading.Lock()
_absent: dict[tuple[str, ...], set[str]] = {}


class _SkipKnownAbsent(importlib.abc.MetaPathFinder):
    def __init__(self, absent: set[str]) -> None:
        self.absent = absent

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> Any:
        if fullname in self.absent:
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None  # the other finders decide


@contextmanager
def known_absent_skipped() -> Iterator[None]:
    """While the block runs, a top-level module known to be absent fails at once."""
    key = (os.getcwd(), *sys.path)  # "" on sys.path is the working directory
    with _lock:
        absent = _absent.setdefault(key, set())
        if len(_absent) > 8:  # sys.path changed many times: keep only the current one
            _absent.clear()
            _absent[key] = absent
    finder = _SkipKnownAbsent(absent)
    missing_before = {name for name in _TOP_LEVEL if name not in sys.modules}
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        with suppress(ValueError):
            sys.meta_path.remove(finder)
    # What is still not imported after vcrpy tried is absent (for this sys.path).
    with _lock:
        absent.update(name for name in missing_before if name not in sys.modules)


# The top-level packages vcrpy's patch builder (vcr/patch.py, vcrpy 9) imports if present.
_TOP_LEVEL = (
    "aiohttp",
    "boto3",
    "botocore",
    "httplib2",
    "httpx",
    "httpx2",
    "httpx_curl_cffi",
    "pyreqwest",
    "requests",
    "tornado",
    "urllib3",
)
