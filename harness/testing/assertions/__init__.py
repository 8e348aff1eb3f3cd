"""The assertions: trace shapes and goldens, trajectories, and the requests a model was sent.

Names resolve on first use (see ``harness.testing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.testing.assertions.request_checks import (
        RequestAssertionError,
        RequestChecks,
        SentRequest,
        assert_requests,
        sent_requests,
        system_sha256,
    )
    from harness.testing.assertions.trace_assertions import (
        assert_trace_golden,
        assert_trace_shape,
        load_trace,
        normalize_trace,
        parse_outline,
        render_trace,
    )
    from harness.testing.assertions.trace_query import MatchMode, ShapeMismatch, find_shape_mismatch
    from harness.testing.assertions.trajectory import assert_trajectory

__all__ = [
    "MatchMode",
    "RequestAssertionError",
    "RequestChecks",
    "SentRequest",
    "ShapeMismatch",
    "assert_requests",
    "assert_trace_golden",
    "assert_trace_shape",
    "assert_trajectory",
    "find_shape_mismatch",
    "load_trace",
    "normalize_trace",
    "parse_outline",
    "render_trace",
    "sent_requests",
    "system_sha256",
]

_HOME = {
    "MatchMode": "trace_query",
    "RequestAssertionError": "request_checks",
    "RequestChecks": "request_checks",
    "SentRequest": "request_checks",
    "ShapeMismatch": "trace_query",
    "assert_requests": "request_checks",
    "assert_trace_golden": "trace_assertions",
    "assert_trace_shape": "trace_assertions",
    "assert_trajectory": "trajectory",
    "find_shape_mismatch": "trace_query",
    "load_trace": "trace_assertions",
    "normalize_trace": "trace_assertions",
    "parse_outline": "trace_assertions",
    "render_trace": "trace_assertions",
    "sent_requests": "request_checks",
    "system_sha256": "request_checks",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
