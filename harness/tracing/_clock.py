"""Cheap wall-clock timestamps for spans (ISO-8601, UTC, microseconds, ``Z`` suffix)."""

from __future__ import annotations

import time

__all__ = ["utc_now_iso"]

# (second, formatted prefix): formatting the date part costs more than a whole
# span, and a run opens many spans within the same second.
_cache: tuple[int, str] = (-1, "")


def utc_now_iso() -> str:
    """Return the current UTC time like ``2024-05-01T12:00:00.123456Z``."""
    global _cache
    sec, rem = divmod(time.time_ns(), 1_000_000_000)
    cached = _cache
    if cached[0] != sec:
        cached = (sec, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(sec)))
        _cache = cached  # a tuple swap is atomic; a race only recomputes the prefix
    return f"{cached[1]}.{rem // 1000:06d}Z"
