"""Record modes: when a cassette replays, records, or starts afresh."""

from __future__ import annotations

from enum import StrEnum

from harness.core.errors import ConfigurationError

__all__ = ["RecordMode", "parse_record_mode"]


class RecordMode(StrEnum):
    """When a cassette replays stored traffic and when it records new traffic.

    ``NONE`` (the default, for CI) only replays: an unmatched request fails and no
    socket to a non-loopback address may open. ``ONCE`` records a missing cassette
    and replays an existing one. ``NEW_EPISODES`` replays what matches and records
    the rest. ``ALL`` sends every request live and replaces the stored interactions
    it re-records, keeping the others. ``REWRITE`` starts the file afresh: nothing
    is loaded and only this run's traffic is saved (atomically, at the end).
    """

    NONE = "none"
    ONCE = "once"
    NEW_EPISODES = "new_episodes"
    ALL = "all"
    REWRITE = "rewrite"

    @property
    def replays(self) -> bool:
        """Whether stored interactions may answer requests in this mode."""
        return self in (RecordMode.NONE, RecordMode.ONCE, RecordMode.NEW_EPISODES)


def parse_record_mode(value: str | RecordMode) -> RecordMode:
    """Return the record mode named by ``value``.

    Raises:
        ConfigurationError: ``value`` names no record mode; the message lists them.
    """
    try:
        return RecordMode(value)
    except ValueError:
        valid = ", ".join(mode.value for mode in RecordMode)
        raise ConfigurationError(f"unknown record mode {value!r}; use one of: {valid}") from None
