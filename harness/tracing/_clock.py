"""Cheap wall-clock timestamps for spans (ISO-8601, UTC, microseconds, ``Z`` suffix)."""

from __future__ import annotations

import time

__all__ = ["utc_now_iso"]

_time_ns = time.time_ns

# (second, "YYYY-MM-DDTHH:MM:SS." prefix): formatting the date part costs more than
# a whole span, and a run opens many spans within the same second. One tuple, so
# swapping it is atomic; a race between threads only recomputes the prefix.
_cache: tuple[int, str] = (-1, "")


def utc_now_iso() -> str:
    """Return the current UTC time like ``2024-05-01T12:00:00.123456Z``."""
    global _cache
    micros = _time_ns() // 1000
    second = micros // 1_000_000
    cached = _cache
    if cached[0] != second:
        cached = (second, time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(second)))
        _cache = cached
    return f"{cached[1]}{micros % 1_000_000:06d}Z"
