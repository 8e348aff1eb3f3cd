"""The trace documents this process wrote, so that reading one back skips the schema.

``FileTraceRecorder`` writes a trace from a ``TraceTree`` that is valid by
construction, and a test then reads the same file again two or three times (the
``trace`` fixture, the eval row, the case checks). Checking those bytes against
the JSON Schema each time cost most of a load (about 3 ms of 4 for a small
trace). So the writer remembers a digest of every document it wrote, and
``TraceTree.from_json`` validates only documents whose digest it does not know:
a file from another process, an older run, or one changed since it was written
(one byte off and the digest differs). The digests are the whole of what is
kept (no trees, no paths), and only the most recent :data:`REMEMBERED` of them.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Final

__all__ = ["REMEMBERED", "forget_written", "remember_written", "was_written"]

REMEMBERED: Final = 4096

_digests: OrderedDict[bytes, None] = OrderedDict()
_lock = threading.Lock()


def _digest(document: bytes) -> bytes:
    return hashlib.blake2b(document, digest_size=20).digest()


def remember_written(document: bytes) -> None:
    """Note that this process wrote ``document`` (a valid trace file's bytes)."""
    key = _digest(document)
    with _lock:
        _digests[key] = None
        _digests.move_to_end(key)
        while len(_digests) > REMEMBERED:
            _digests.popitem(last=False)


def was_written(document: bytes) -> bool:
    """Whether ``document`` is byte for byte one this process wrote (and remembers)."""
    key = _digest(document)
    with _lock:
        return key in _digests


def forget_written() -> None:
    """Forget every digest: every later read validates again."""
    with _lock:
        _digests.clear()
