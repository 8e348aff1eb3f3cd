"""The testing toolkit: trace assertions, traffic traces, fixtures and the pytest plugin.

``adapters`` (imported on demand) turns other frameworks' traces into trace trees.
"""

from harness.testing.live_guard import LiveCallBlockedError
from harness.testing.llm_cassette import LLMCassette
from harness.testing.llm_config import PROFILES, LLMCassetteConfig
from harness.testing.trace_assertions import (
    assert_trace_golden,
    assert_trace_shape,
    load_trace,
    normalize_trace,
    parse_outline,
    render_trace,
)
from harness.testing.trace_query import MatchMode, ShapeMismatch, find_shape_mismatch
from harness.tracing import OutlineNode
from harness.traffic import HttpExchange, trace_from_cassette, trace_from_exchanges

__all__ = [
    "PROFILES",
    "HttpExchange",
    "LLMCassette",
    "LLMCassetteConfig",
    "LiveCallBlockedError",
    "MatchMode",
    "OutlineNode",
    "ShapeMismatch",
    "assert_trace_golden",
    "assert_trace_shape",
    "find_shape_mismatch",
    "load_trace",
    "normalize_trace",
    "parse_outline",
    "render_trace",
    "trace_from_cassette",
    "trace_from_exchanges",
]
