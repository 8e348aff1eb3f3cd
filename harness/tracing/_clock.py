"""Span timestamps: one monotonic reading gives both the duration and the wall time."""

from __future__ import annotations

import time

__all__ = ["TraceClock"]

# "000" ... "999": two lookups write the microseconds for less than one "06d" format.
_DIGITS3 = tuple(f"{number:03d}" for number in range(1000))


class TraceClock:
    """Wall-clock ISO-8601 timestamps (UTC, microseconds, ``Z``) of one trace.

    The wall clock is read once, when the trace begins; later times are that
    reading plus the monotonic time elapsed since. So every span event reads one
    clock, and ``ended_at - started_at`` agrees with ``duration_ms`` even if the
    system clock is stepped during the run.
    """

    __slots__ = ("_origin_us", "_prefix", "origin_ns")

    def __init__(self) -> None:
        self.origin_ns = time.perf_counter_ns()
        """The monotonic time (``time.perf_counter_ns``) the clock was started at."""
        self._origin_us = time.time_ns() // 1000
        # (second, "YYYY-MM-DDTHH:MM:SS." prefix): formatting the date costs more
        # than a whole span, and a run opens many spans within one second. A tuple,
        # so replacing it is atomic; a race between threads only recomputes it.
        self._prefix: tuple[int, str] = (-1, "")

    def iso(self, now_ns: int) -> str:
        """The wall time at ``now_ns`` (a ``time.perf_counter_ns`` reading), like
        ``2024-05-01T12:00:00.123456Z``."""
        second, micros = divmod(self._origin_us + (now_ns - self.origin_ns) // 1000, 1_000_000)
        prefix = self._prefix
        if prefix[0] != second:
            prefix = (second, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(second)))
            self._prefix = prefix
        return f"{prefix[1]}{_DIGITS3[micros // 1000]}{_DIGITS3[micros % 1000]}Z"
