"""Remembering event ids for a while, because Feishu delivers an event more than once."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable

__all__ = ["EventDeduplicator"]


class EventDeduplicator:
    """A bounded, thread-safe memory of recently seen event ids.

    Feishu redelivers an event when it did not get a 200 quickly enough, so
    the same ``event_id`` can arrive several times. An id is remembered for
    ``ttl_seconds``; at most ``max_size`` ids are kept (oldest forgotten first),
    so memory stays bounded however long the server runs.

    Args:
        ttl_seconds: how long an id counts as seen.
        max_size: the most ids kept at once.
        clock: monotonic seconds; a fake in tests.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float = 6 * 3600,
        max_size: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if ttl_seconds <= 0 or max_size < 1:
            raise ValueError("ttl_seconds must be positive and max_size at least 1")
        self.ttl_seconds = ttl_seconds
        self.max_size = max_size
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def first_time(self, event_id: str) -> bool:
        """Record ``event_id``; True only the first time it is seen within the TTL."""
        now = self._clock()
        with self._lock:
            self._forget_expired(now)
            if event_id in self._seen:
                return False
            self._seen[event_id] = now + self.ttl_seconds
            while len(self._seen) > self.max_size:
                self._seen.popitem(last=False)
            return True

    def __len__(self) -> int:
        with self._lock:
            self._forget_expired(self._clock())
            return len(self._seen)

    def _forget_expired(self, now: float) -> None:
        # Insertion order is expiry order (one TTL for all), so stop at the first live id.
        while self._seen:
            oldest, expires = next(iter(self._seen.items()))
            if expires > now:
                return
            del self._seen[oldest]
