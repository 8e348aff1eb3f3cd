"""The testing toolkit: trace assertions, traffic traces, fixtures and the pytest plugin.

Its rooms: ``plugin`` (the pytest glue: the entry point, fixtures, reports),
``cases_suite`` (the case runner), ``rows`` (eval rows with mutants),
``assertions``, ``cassettes`` (for any agent) and ``adapters``; the names users
need are exported here, whichever room holds them.

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
    from harness.testing.cassettes.live_guard import LiveCallBlockedError
    from harness.testing.cassettes.llm_cassette import LLMCassette
    from harness.testing.cassettes.llm_config import PROFILES, LLMCassetteConfig
    from harness.testing.cassettes.llm_proxy import LLMProxy
    from harness.testing.cassettes.mcp_cassette import McpCassetteFixture
    from harness.testing.cassettes.recorded import RECORDED_PROVIDERS
    from harness.testing.cassettes.tool_calls import RecordedToolCall
    from harness.testing.cassettes.traffic import (
        HttpExchange,
        trace_from_cassette,
        trace_from_exchanges,
    )
    from harness.testing.options import HarnessOptions
    from harness.testing.rows.evidence import Evidence
    from harness.testing.rows.runlog import LastTrace
    from harness.testing.rows.workspace import Workspace
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
    "PROFILES": "cassettes.llm_config",
    "RECORDED_PROVIDERS": "cassettes.recorded",
    "Evidence": "rows.evidence",
    "HarnessOptions": "options",
    "HttpExchange": "cassettes.traffic",
    "LLMCassette": "cassettes.llm_cassette",
    "LLMCassetteConfig": "cassettes.llm_config",
    "LLMProxy": "cassettes.llm_proxy",
    "LastTrace": "rows.runlog",
    "LiveCallBlockedError": "cassettes.live_guard",
    "MatchMode": "assertions.trace_query",
    "McpCassetteFixture": "cassettes.mcp_cassette",
    # harness.tracing's, as trace_assertions (which parses outlines) imports it.
    "OutlineNode": "assertions.trace_assertions",
    "RecordedToolCall": "cassettes.tool_calls",
    "RequestAssertionError": "assertions.request_checks",
    "RequestChecks": "assertions.request_checks",
    "SentRequest": "assertions.request_checks",
    "ShapeMismatch": "assertions.trace_query",
    "Workspace": "rows.workspace",
    "assert_requests": "assertions.request_checks",
    "assert_trace_golden": "assertions.trace_assertions",
    "assert_trace_shape": "assertions.trace_assertions",
    "assert_trajectory": "assertions.trajectory",
    "find_shape_mismatch": "assertions.trace_query",
    "load_trace": "assertions.trace_assertions",
    "normalize_trace": "assertions.trace_assertions",
    "parse_outline": "assertions.trace_assertions",
    "render_trace": "assertions.trace_assertions",
    "sent_requests": "assertions.request_checks",
    "system_sha256": "assertions.request_checks",
    "trace_from_cassette": "cassettes.traffic",
    "trace_from_exchanges": "cassettes.traffic",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
