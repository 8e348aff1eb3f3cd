"""The traffic trace, as the testing toolkit has named it since SPEC 16: it lives
in ``harness.traffic`` (the viewer reads cassettes through it too)."""

from __future__ import annotations

from harness.traffic import (
    HttpExchange,
    exchanges_from_cassette,
    trace_from_cassette,
    trace_from_exchanges,
)

__all__ = [
    "HttpExchange",
    "exchanges_from_cassette",
    "trace_from_cassette",
    "trace_from_exchanges",
]
