"""The testing toolkit: trace assertions, traffic traces, fixtures and the pytest plugin.

``adapters`` (imported on demand) turns other frameworks' traces into trace trees.
The types of the plugin's fixtures are exported here too (``Workspace`` for
``workspace``, ``LastTrace`` for ``trace``, ``LLMCassette`` for ``llm_cassette``,
``McpCassetteFixture``, ``Evidence``, ``HarnessOptions``), so a user's annotated
test imports nothing below this package.

Names resolve on first use: pytest imports the plugin (``harness.testing.plugin``)
through this package in every process, and an xdist controller, which runs no
test, never needs the cassette layer, the trace assertions or the traffic
traces these names pull in (a quarter of a second before it can start its
workers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.testing.evidence import Evidence
    from harness.testing.live_guard import LiveCallBlockedError
    from harness.testing.llm_cassette import LLMCassette
    from harness.testing.llm_config import PROFILES, LLMCassetteConfig
    from harness.testing.llm_proxy import LLMProxy
    from harness.testing.mcp_cassette import McpCassetteFixture
    from harness.testing.options import HarnessOptions
    from harness.testing.recorded import RECORDED_PROVIDERS
    from harness.testing.request_checks import (
        RequestAssertionError,
        RequestChecks,
        SentRequest,
        assert_requests,
        sent_requests,
        system_sha256,
    )
    from harness.testing.runlog import LastTrace
    from harness.testing.tool_calls import RecordedToolCall
    from harness.testing.trace_assertions import (
        assert_trace_golden,
        assert_trace_shape,
        load_trace,
        normalize_trace,
        parse_outline,
        render_trace,
    )
    from harness.testing.trace_query import MatchMode, ShapeMismatch, find_shape_mismatch
    from harness.testing.traffic import HttpExchange, trace_from_cassette, trace_from_exchanges
    from harness.testing.trajectory import assert_trajectory
    from harness.testing.workspace import Workspace
    from harness.tracing import OutlineNode

__all__ = [
    "PROFILES",
    "RECORDED_PROVIDERS",
    "Evidence",
    "HarnessOptions",
    "HttpExchange",
    "LLMCassette",
    "LLMCassetteConfig",
    "LLMProxy",
    "LastTrace",
    "LiveCallBlockedError",
    "MatchMode",
    "McpCassetteFixture",
    "OutlineNode",
    "RecordedToolCall",
    "RequestAssertionError",
    "RequestChecks",
    "SentRequest",
    "ShapeMismatch",
    "Workspace",
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
    "trace_from_cassette",
    "trace_from_exchanges",
]

_HOME = {
    "PROFILES": "llm_config",
    "RECORDED_PROVIDERS": "recorded",
    "Evidence": "evidence",
    "HarnessOptions": "options",
    "HttpExchange": "traffic",
    "LLMCassette": "llm_cassette",
    "LLMCassetteConfig": "llm_config",
    "LLMProxy": "llm_proxy",
    "LastTrace": "runlog",
    "LiveCallBlockedError": "live_guard",
    "MatchMode": "trace_query",
    "McpCassetteFixture": "mcp_cassette",
    # harness.tracing's, as trace_assertions (which parses outlines) imports it.
    "OutlineNode": "trace_assertions",
    "RecordedToolCall": "tool_calls",
    "RequestAssertionError": "request_checks",
    "RequestChecks": "request_checks",
    "SentRequest": "request_checks",
    "ShapeMismatch": "trace_query",
    "Workspace": "workspace",
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
    "trace_from_cassette": "traffic",
    "trace_from_exchanges": "traffic",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
