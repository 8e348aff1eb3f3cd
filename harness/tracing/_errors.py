"""Errors raised by the tracing package.

They hang under the one harness hierarchy (``harness.core.errors``)::

    HarnessError
     └── TracingError               something about a trace went wrong
          ├── TraceUsageError       the Tracer API was misused (also RuntimeError)
          ├── TraceFormatError      a trace file is corrupt or of another version (also ValueError)
          └── TraceRecordError      a recorder could not store a trace (the Tracer logs it)

A failing recorder never breaks a run: the Tracer catches every exception a
recorder raises and logs one warning per Tracer instance.
"""

from __future__ import annotations

from harness.core import HarnessError

__all__ = ["TraceFormatError", "TraceRecordError", "TraceUsageError", "TracingError"]


class TracingError(HarnessError):
    """Root of the errors the tracing package raises."""


class TraceUsageError(TracingError, RuntimeError):
    """The Tracer was used out of order, e.g. a trace begun inside an open trace."""


class TraceFormatError(TracingError, ValueError):
    """A trace document is not valid JSON, has another schema version or breaks the schema."""


class TraceRecordError(TracingError):
    """A recorder could not store a finished trace; the message names the path and the cause."""
