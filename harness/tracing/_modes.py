"""Capture modes: how much a trace keeps (``HARNESS_TRACE_MODE``).

``off``
    nothing is recorded; the Tracer methods return at once.
``metadata`` (default)
    structure, timings, names, hashes and counts. The Tracer never stores payload
    text in this mode: ``set_payload`` is a no-op and error messages are dropped.
``replay``
    as metadata, plus payloads (prompts, arguments, answers) after redaction and
    truncation, enough to understand or replay a run.
"""

from __future__ import annotations

from typing import Final, Literal

from harness.core import ConfigurationError

__all__ = ["DEFAULT_TRACE_MODE", "TRACE_MODES", "TraceMode", "parse_trace_mode"]

TraceMode = Literal["off", "metadata", "replay"]

TRACE_MODES: Final[tuple[TraceMode, ...]] = ("off", "metadata", "replay")
DEFAULT_TRACE_MODE: Final[TraceMode] = "metadata"


def parse_trace_mode(value: str) -> TraceMode:
    """Return ``value`` as a TraceMode (case and surrounding space ignored).

    Raises:
        ConfigurationError: the value is not one of off, metadata, replay.
    """
    mode = str(value).strip().lower()
    if mode not in TRACE_MODES:
        raise ConfigurationError(
            f"trace mode {value!r} is not valid: use one of {', '.join(TRACE_MODES)} "
            "(for example HARNESS_TRACE_MODE=metadata)"
        )
    return mode
