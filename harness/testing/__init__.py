"""The testing toolkit: trace assertions, fixtures and the pytest plugin."""

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

__all__ = [
    "PROFILES",
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
]
