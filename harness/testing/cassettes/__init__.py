"""Cassettes for any agent: model, MCP and tool traffic recorded per test and read back.

``llm_cassette`` and its proxy for an agent in another process, ``mcp_cassette``,
the recorded providers of harness's own runs, the traffic trace of a cassette,
the tool calls read from it, and the guard that fails a live call no cassette
answers. Names resolve on first use (see ``harness.testing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
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

__all__ = [
    "PROFILES",
    "RECORDED_PROVIDERS",
    "HttpExchange",
    "LLMCassette",
    "LLMCassetteConfig",
    "LLMProxy",
    "LiveCallBlockedError",
    "McpCassetteFixture",
    "RecordedToolCall",
    "trace_from_cassette",
    "trace_from_exchanges",
]

_HOME = {
    "PROFILES": "llm_config",
    "RECORDED_PROVIDERS": "recorded",
    "HttpExchange": "traffic",
    "LLMCassette": "llm_cassette",
    "LLMCassetteConfig": "llm_config",
    "LLMProxy": "llm_proxy",
    "LiveCallBlockedError": "live_guard",
    "McpCassetteFixture": "mcp_cassette",
    "RecordedToolCall": "tool_calls",
    "trace_from_cassette": "traffic",
    "trace_from_exchanges": "traffic",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
