"""Other frameworks' traces as harness ``TraceTree`` objects.

- ``from_otel_spans(spans)``: OpenTelemetry spans with the GenAI semantic
  conventions (pydantic-ai, Logfire) or OpenInference's (``_otel``).
- ``AgentsTraceProcessor``: an OpenAI Agents SDK tracing processor (``_agents``).

Both shape the framework's agent, model, tool and handoff spans as harness
records its own runs (``_nodes``), so ``assert_trace_shape``, ``trace.one(...)``
and ``harness view`` read them as they read a harness or traffic trace.
Importing this package imports neither OpenTelemetry nor the Agents SDK: the
processor's module (which needs ``openai-agents``) loads when it is first named.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.testing.adapters._otel import from_otel_spans
from harness.testing.adapters._smolagents import from_smolagents

if TYPE_CHECKING:
    from harness.testing.adapters._agents import AgentsTraceProcessor

__all__ = ["AgentsTraceProcessor", "from_otel_spans", "from_smolagents"]


def __getattr__(name: str) -> Any:
    if name != "AgentsTraceProcessor":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        from harness.testing.adapters._agents import AgentsTraceProcessor
    except ModuleNotFoundError as exc:
        if exc.name != "agents":
            raise
        raise ImportError(
            "AgentsTraceProcessor needs the OpenAI Agents SDK: pip install openai-agents"
        ) from exc
    return AgentsTraceProcessor
