"""Remembering event ids for a while, because Feishu delivers an event more than once.

The memory can be persisted (``state_dir/feishu/seen-events.json``), so a
captured request replayed after a restart is still recognised. The file is a
versioned JSON document rewritten atomically (temp file + rename) on every new
id; it holds at most ``max_size`` ids, each with its wall-clock expiry.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from harness.core.errors import HarnessError
from harness.documents import read_document
from harness.files import atomic_write_text

__all__ = ["SEEN_EVENTS_FILE", "EventDeduplicator"]

SEEN_EVENTS_FILE = Path("feishu") / "seen-events.json"
"""Where ``FeishuEventAdapter`` keeps seen event ids, relative to the state dir."""

_SCHEMA_VERSION = 1

logger = logging.getLogger("harness.feishu")


class _SeenEvents(BaseModel):
    """The persisted memory: event id -> Unix time it is forgotten, oldest first."""

    model_config = ConfigDict(extra="forbid")

    schema_version: int = _SCHEMA_VERSION
    events: dict[str, float]


class _Unreadable(HarnessError):
    pass


class EventDeduplicator:
    """A bounded, thread-safe memory of recently seen event ids.

    Feishu redelivers an event when it did not get a 200 quickly enough, so
    the same ``event_id`` can arrive several times. An id is remembered for
    ``ttl_seconds``; at most ``max_size`` ids are kept (oldest forgotten first),
    so memory stays bounded however long the server runs.

    Args:
        ttl_seconds: how long an id counts as seen.
        max_size: the most ids kept at once.
        clock: Unix seconds; a fake in tests. Wall-clock time, so expiries
            stored in ``path`` mean the same after a restart.
        path: persist the memory here (loaded now, rewritten on each new id);
            None keeps it in memory only. An unreadable file is logged and
            replaced.
    """

    def __init__(
        self,
        *,
        ttl_seconds: float = 6 * 3600,
        max_size: int = 10_000,
        clock: Callable[[], float] = time.time,
        path: Path | None = None,
    ) -> None:
        if ttl_seconds <= 0 or max_size < 1:
            raise ValueError("ttl_seconds must be positive and max_size at least 1")
        self.ttl_seconds = ttl_seconds
        self.max_size = max_size
        self.path = path
        self._clock = clock
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()
        if path is not None:
            self._load(path)

    def first_time(self, event_id: str) -> bool:
        """Record ``event_id``; True only the first time it is seen within the TTL.

        With a ``path``, the id is on disk before this returns True.
        """
        now = self._clock()
        with self._lock:
            self._forget_expired(now)
            if event_id in self._seen:
                return False
            self._seen[event_id] = now + self.ttl_seconds
            while len(self._seen) > self.max_size:
                self._seen.popitem(last=False)
            self._save()
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

    def _load(self, path: Path) -> None:
        if not path.exists():
            return
        try:
            stored = read_document(
                path, _SeenEvents, _SCHEMA_VERSION, what="seen-events file", error=_Unreadable
            )
        except _Unreadable as exc:
            logger.warning("starting with no remembered event ids: %s", exc)
            return
        live = sorted((expires, key) for key, expires in stored.events.items())
        for expires, key in live[-self.max_size :]:
            self._seen[key] = min(expires, self._clock() + self.ttl_seconds)
        self._forget_expired(self._clock())

    def _save(self) -> None:
        if self.path is None:
            return
        document = _SeenEvents(events=dict(self._seen))
        try:
            atomic_write_text(self.path, document.model_dump_json(), private=True)
        except OSError as exc:
            # Keep serving: the in-memory memory still de-duplicates until a restart.
            logger.error("could not persist seen event ids to %s: %s", self.path, exc)
