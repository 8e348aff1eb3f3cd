"""Other frameworks' traces as harness ``TraceTree`` objects.

- ``from_otel_spans(spans)``: OpenTelemetry spans with the GenAI semantic
  conventions (pydantic-ai, Logfire) or OpenInference's (``_otel``).
- ``AgentsTraceProcessor``: an OpenAI Agents SDK tracing processor (``_agents``).
- ``LangGraphTraceHandler``: a LangChain callback handler for LangGraph runs (``_langgraph``).
- ``from_smolagents(agent)``: a smolagents agent's memory steps (``_smolagents``): its
  text-protocol tool calls, ``final_answer`` as the answer, managed agents as sub-runs
  (every call of each with ``watch_smolagents(agent)`` before the run).

Each shapes the framework's agent, model, tool and handoff spans as harness
records its own runs (``_nodes``), so ``assert_trace_shape``, ``trace.one(...)``
and ``harness view`` read them as they read a harness or traffic trace.
Importing this package imports neither OpenTelemetry nor the Agents SDK: the
processor's module (which needs ``openai-agents``) loads when it is first named.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness.testing.adapters._otel import from_otel_spans
from harness.testing.adapters._smolagents import from_smolagents, watch_smolagents

if TYPE_CHECKING:
    from harness.testing.adapters._agents import AgentsTraceProcessor
    from harness.testing.adapters._langgraph import LangGraphTraceHandler

__all__ = [
    "AgentsTraceProcessor",
    "LangGraphTraceHandler",
    "from_otel_spans",
    "from_smolagents",
    "watch_smolagents",
]


def __getattr__(name: str) -> Any:
    if name == "LangGraphTraceHandler":  # needs langchain-core (pip install langgraph)
        return _lazy("_langgraph", name, "langchain_core", "langgraph")
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


def _lazy(module: str, name: str, needs: str, install: str) -> Any:
    """``name`` of the adapter ``module``, with an install hint when its framework is missing."""
    try:
        loaded = importlib.import_module(f"harness.testing.adapters.{module}")
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] != needs:
            raise
        raise ImportError(f"{name} needs {install}: pip install {install}") from exc
    return getattr(loaded, name)
