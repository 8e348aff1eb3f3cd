"""An OpenAI Agents SDK tracing processor that collects each run as a harness trace.

Install it for the run (``agents.add_trace_processor(processor)``, or
``agents.set_trace_processors([processor])`` so nothing is sent to OpenAI's
trace ingest), run the agent, then read ``processor.tree()``. The SDK's spans
map to harness kinds:

- ``task`` (one ``Runner.run``) is the ``agent.run`` root, ``turn`` an
  ``agent.step`` (one model call and what follows it);
- ``agent`` names the agent whose turns follow (``agent_name`` on the steps); an
  agent run inside a tool (``agent.as_tool()``) is a ``subagent.run`` there;
- ``generation`` (Chat Completions) and ``response`` (Responses API) are
  ``llm.call`` with model, usage, stop reason and the tool calls asked for;
- ``function`` is ``tool.call <tool>``; ``handoff`` is ``handoff <to agent>``;
  ``guardrail`` is ``guardrail <name>`` (``triggered``); other spans give way
  to their children.

Importing this module imports the Agents SDK; ``harness.testing.adapters``
imports it only when ``AgentsTraceProcessor`` is asked for.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from agents.tracing import (
    AgentSpanData,
    FunctionSpanData,
    GenerationSpanData,
    GuardrailSpanData,
    HandoffSpanData,
    ResponseSpanData,
    Span,
    TaskSpanData,
    Trace,
    TracingProcessor,
    TurnSpanData,
)

from harness.testing.adapters._nodes import AGENT, Node, build_tree, ns_of_iso
from harness.tracing import TraceMode, TraceTree, TraceUsageError
from harness.traffic.attributes import (
    asked_calls,
    capture_mode,
    payload_limit,
    tool_call_attributes,
    usage_attributes,
)
from harness.traffic.wire import STABLE_JSON, ModelResponse, TokenUsage, ToolAsk, mapping
from harness.wires.openai.traffic import read_chat_response
from harness.wires.openai_responses.traffic import read_responses_response

__all__ = ["AgentsTraceProcessor"]


@dataclass
class _Trace:
    trace_id: str
    name: str
    group_id: str | None
    ended: bool = False
    spans: list[Span[Any]] = field(default_factory=list)


def _usage(usage: Any) -> TokenUsage:
    data = mapping(usage)
    reasoning = mapping(data.get("output_tokens_details")).get("reasoning_tokens")
    inputs = mapping(data.get("input_tokens_details"))
    return TokenUsage(
        input=int(data.get("input_tokens") or 0),
        output=int(data.get("output_tokens") or 0),
        cached_input=int(inputs.get("cached_tokens") or data.get("cached_input_tokens") or 0),
        cache_write_input=int(inputs.get("cache_write_tokens") or 0),
        reasoning=reasoning if isinstance(reasoning, int) else None,
    )


def _model_response(data: GenerationSpanData | ResponseSpanData) -> tuple[ModelResponse, str]:
    """What the model answered, and the model name asked for."""
    if isinstance(data, ResponseSpanData):
        dumped = data.response.model_dump(mode="json") if data.response is not None else {}
        read = read_responses_response(200, dumped, b"")
        if data.usage and not dumped.get("usage"):
            read = ModelResponse(**{**read.__dict__, "usage": _usage(data.usage)})
        return read, str(dumped.get("model") or "")
    output = list(data.output or [])
    message = dict(output[0]) if output else {}
    read = read_chat_response(200, {"model": data.model, "choices": [{"message": message}]}, b"")
    return ModelResponse(**{**read.__dict__, "usage": _usage(data.usage)}), data.model or ""


def _llm(data: GenerationSpanData | ResponseSpanData, replay_limit: int | None) -> Node:
    response, model = _model_response(data)
    node = Node("llm.call")
    node.attributes = {
        "provider": "openai-responses" if isinstance(data, ResponseSpanData) else "openai",
        "model": model or response.model,
        "response_model": response.model,
        **usage_attributes(response.usage),
        "tool_call_count": len(response.asks),
        "tool_calls": asked_calls(response.asks, limit=replay_limit),
        "text_chars": len(response.text),
        "stop_reason": response.stop_reason,
    }
    if data.input is not None:
        node.payload["messages"] = data.input
    if response.text:
        node.payload["response_text"] = response.text
    return node


def _tool(data: FunctionSpanData, failed: bool) -> Node:
    output = data.output
    result = None if output is None else output if isinstance(output, str) else str(output)
    ask = ToolAsk("", data.name, data.input or "{}")
    node = Node("tool.call", data.name, tool_call_attributes(ask, 0, result, failed))
    for key in ("tool_call_id", "tool_call_index"):  # the step's model call tells them
        node.attributes.pop(key)
    if failed:
        node.attributes["status"] = "error"
    if data.mcp_data:
        node.attributes["mcp"] = True
    node.payload = {"arguments": data.input, **({"observation": result} if result else {})}
    return node


def _node(span: Span[Any], replay_limit: int | None) -> Node:
    data = span.span_data
    error = span.error
    node: Node
    if isinstance(data, TaskSpanData):
        node = Node("agent.run", None, {"workflow_name": data.name})
    elif isinstance(data, TurnSpanData):
        node = Node("agent.step", None, {"step": data.turn, "agent_name": data.agent_name})
    elif isinstance(data, AgentSpanData):
        node = Node(AGENT, None, {"agent_name": data.name, "tools": list(data.tools or [])})
    elif isinstance(data, GenerationSpanData | ResponseSpanData):
        node = _llm(data, replay_limit)
    elif isinstance(data, FunctionSpanData):
        node = _tool(data, error is not None)
    elif isinstance(data, HandoffSpanData):
        attributes = {"from_agent": data.from_agent, "to_agent": data.to_agent}
        node = Node("handoff", data.to_agent or "handoff", attributes)
    elif isinstance(data, GuardrailSpanData):
        node = Node("guardrail", data.name, {"triggered": data.triggered})
    else:
        node = Node(None)
    node.start_ns, node.end_ns = ns_of_iso(span.started_at), ns_of_iso(span.ended_at)
    if error is not None:
        node.status = "error"
        node.attributes["error_type"] = "AgentsError"
        node.payload["error_message"] = error.get("message")
        if error.get("data"):
            node.payload["error_data"] = STABLE_JSON(error["data"])
    return node


class AgentsTraceProcessor(TracingProcessor):
    """Collects OpenAI Agents SDK traces; ``tree()`` / ``trees()`` give them as ``TraceTree``.

    Thread-safe; spans are kept as they end and mapped when a tree is asked for
    (see the module docstring for the mapping).

    Args:
        name: the root span's name in every tree.
        mode: ``metadata`` or ``replay`` (payloads kept, redacted); default
            ``HARNESS_TRACE_MODE``, else metadata.
        max_payload_chars: payload truncation (default 4000).
    """

    def __init__(
        self,
        *,
        name: str = "agent.run",
        mode: TraceMode | None = None,
        max_payload_chars: int | None = None,
    ) -> None:
        self._name = name
        self._mode = capture_mode(mode)
        self._limit = payload_limit(max_payload_chars)
        self._lock = threading.Lock()
        self._traces: dict[str, _Trace] = {}

    # -- TracingProcessor ----------------------------------------------------------

    def on_trace_start(self, trace: Trace) -> None:
        with self._lock:
            self._entry(trace.trace_id, trace.name, getattr(trace, "group_id", None))

    def on_trace_end(self, trace: Trace) -> None:
        with self._lock:
            self._entry(trace.trace_id, trace.name, getattr(trace, "group_id", None)).ended = True

    def on_span_start(self, span: Span[Any]) -> None:
        return None  # spans are read once they have ended

    def on_span_end(self, span: Span[Any]) -> None:
        with self._lock:
            self._entry(span.trace_id, "", None).spans.append(span)

    def shutdown(self) -> None:
        return None

    def force_flush(self) -> None:
        return None

    # -- the trees -----------------------------------------------------------------

    def trees(self) -> list[TraceTree]:
        """One tree per trace seen, in the order the traces began."""
        with self._lock:
            traces = [(t, list(t.spans)) for t in self._traces.values()]
        return [self._tree(trace, spans) for trace, spans in traces]

    def tree(self) -> TraceTree:
        """The tree of the one trace seen.

        Raises:
            TraceUsageError: no trace, or several (use ``trees()``).
        """
        trees = self.trees()
        if len(trees) != 1:
            found = "no trace was" if not trees else f"{len(trees)} traces were"
            raise TraceUsageError(
                f"AgentsTraceProcessor.tree() needs exactly one trace, but {found} "
                "collected; install the processor before the run (agents.add_trace_processor) "
                "and read trees() for several runs, or clear() between them"
            )
        return trees[0]

    def clear(self) -> None:
        """Forget every trace collected so far."""
        with self._lock:
            self._traces.clear()

    def _entry(self, trace_id: str, name: str, group_id: str | None) -> _Trace:
        entry = self._traces.get(trace_id)
        if entry is None:
            entry = self._traces[trace_id] = _Trace(trace_id, name, group_id)
        elif name and not entry.name:
            entry.name = name
        return entry

    def _tree(self, trace: _Trace, spans: list[Span[Any]]) -> TraceTree:
        replay_limit = self._limit if self._mode == "replay" else None
        nodes = {span.span_id: _node(span, replay_limit) for span in spans}
        roots: list[Node] = []
        for span in spans:
            parent = nodes.get(span.parent_id) if span.parent_id else None
            (parent.children if parent is not None else roots).append(nodes[span.span_id])
        return build_tree(
            roots,
            name=self._name,
            source="openai-agents",
            trace_id=trace.trace_id,
            mode=self._mode,
            max_payload_chars=self._limit,
            metadata={
                "workflow_name": trace.name,
                "group_id": trace.group_id,
                "ended": trace.ended,
                "spans": len(spans),
            },
        )
