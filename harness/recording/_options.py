"""``CassetteOptions``: everything harness adds to a vcrpy cassette, in one value.

Its own module so that what reads a cassette's options (the miss report, the
session) needs neither vcrpy nor the cassette class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from harness.recording._matching import BodyNormalizer
from harness.recording._modes import RecordMode

__all__ = ["CassetteOptions", "RerecordHint"]

RerecordHint = str | Callable[[], str] | None


@dataclass(frozen=True)
class CassetteOptions:
    """Everything harness adds to a vcrpy cassette."""

    mode: RecordMode
    normalizer: BodyNormalizer
    # The command that re-records, or a function making it (called only when an error
    # shows it: building it may mean reading the cassette's header).
    rerecord_hint: RerecordHint = None
    save_error_responses: bool = False
    metadata: dict[str, Any] | None = None
    # Hosts the cassette leaves alone: neither played nor recorded (vcrpy's ignore_hosts).
    ignore_hosts: frozenset[str] = frozenset()
    # Ignored hosts whose name lookup fails as on a dead network (see _offline).
    offline_hosts: frozenset[str] = frozenset()
    # Answers a request before the cassette is asked (e.g. a mutant served in order);
    # None lets the cassette decide. Its answers are logged but never saved.
    responder: Callable[[Any], dict[str, Any] | None] | None = None
    # With a narrowed intercept: it applies only when every stored request's path
    # ends with one of these (the SDK's endpoints); empty: always.
    intercept_paths: tuple[str, ...] = ()
