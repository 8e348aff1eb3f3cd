"""OpenTelemetry spans with the GenAI semantic conventions as a harness trace.

pydantic-ai (and Logfire) emit ``invoke_agent <agent>``, ``chat <model>`` and
``execute_tool <tool>`` spans, told apart by ``gen_ai.operation.name``; the
attributes read are ``gen_ai.agent.name``, ``gen_ai.request.model`` /
``gen_ai.response.model``, ``gen_ai.provider.name`` (or ``gen_ai.system``),
``gen_ai.usage.input_tokens`` / ``output_tokens`` /
``cache_read.input_tokens`` / ``cache_creation.input_tokens``,
``gen_ai.response.finish_reasons``, the tool calls in ``gen_ai.output.messages``,
pydantic-ai's ``model_request_parameters`` (its output tools), and
``gen_ai.tool.name`` / ``gen_ai.tool.call.id`` / ``gen_ai.tool.call.arguments`` /
``gen_ai.tool.call.result``. OpenInference spans are read by
``openinference.span.kind`` (``AGENT``, ``LLM``, ``TOOL``) with ``llm.model_name``,
``llm.token_count.*``, ``tool.name``, ``input.value`` / ``output.value``.

An output tool (``harness.core.output_tools``: the call that is the answer) counts
in no ``tool_call_count``: its model call names it (``output_tool``), marks it
``output`` among its ``tool_calls`` and keeps its arguments as the ``output``
payload, as the traffic trace does. pydantic-ai's model spans list the output
tools the request offered (``kind: "output"``), so a ``ToolOutput(name=...)`` of
any name is known; other spans fall back to the registry's names.

Spans are read by duck typing (``name``, ``context``, ``parent``, ``start_time``,
``end_time``, ``attributes``, ``status``, ``events``, as the SDK's
``ReadableSpan`` has them), so importing this needs no OpenTelemetry.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from harness.core.output_tools import is_output_tool
from harness.testing.adapters._nodes import AGENT, Node, build_tree
from harness.tracing import TraceMode, TraceTree
from harness.traffic.attributes import (
    arguments_value,
    asked_calls,
    capture_mode,
    payload_limit,
    tool_call_attributes,
    usage_attributes,
)
from harness.traffic.wire import STABLE_JSON, TokenUsage, ToolAsk

__all__ = ["from_otel_spans"]

_LLM_OPERATIONS: Final = frozenset({"chat", "text_completion", "generate_content"})
_OPENINFERENCE: Final = {"AGENT": AGENT, "LLM": "llm.call", "TOOL": "tool.call"}
_OI_TOOL_CALL: Final = re.compile(
    r"^llm\.output_messages\.(\d+)\.message\.tool_calls\.(\d+)\.tool_call\.(.+)$"
)


def _int(value: Any) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _first(attributes: Mapping[str, Any], *keys: str) -> Any:
    return next((attributes[k] for k in keys if attributes.get(k) not in (None, "")), None)


def _json(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else STABLE_JSON(value)


def _kind(attributes: Mapping[str, Any]) -> str | None:
    operation = attributes.get("gen_ai.operation.name")
    if operation in _LLM_OPERATIONS:
        return "llm.call"
    if operation == "execute_tool":
        return "tool.call"
    if operation in ("invoke_agent", "create_agent"):
        return AGENT
    return _OPENINFERENCE.get(str(attributes.get("openinference.span.kind", "")).upper())


def _output_parts(attributes: Mapping[str, Any]) -> tuple[list[ToolAsk], str]:
    """The tool calls and the text of an LLM span's answer."""
    asks: list[ToolAsk] = []
    texts: list[str] = []
    messages = _json(attributes.get("gen_ai.output.messages"))
    for message in messages if isinstance(messages, list) else []:
        for part in message.get("parts") or [] if isinstance(message, dict) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "tool_call":
                arguments = part.get("arguments")
                text = arguments if isinstance(arguments, str) else STABLE_JSON(arguments or {})
                asks.append(ToolAsk(str(part.get("id") or ""), str(part.get("name") or "?"), text))
            elif part.get("type") == "text":
                texts.append(str(part.get("content") or ""))
    found: dict[tuple[int, int], dict[str, str]] = {}
    for key, value in attributes.items():
        match = _OI_TOOL_CALL.match(key)
        if match:
            found.setdefault((int(match[1]), int(match[2])), {})[match[3]] = str(value)
    for _, call in sorted(found.items()):
        asks.append(
            ToolAsk(
                call.get("id", ""),
                call.get("function.name", "?"),
                call.get("function.arguments", "{}"),
            )
        )
    if not texts and isinstance(attributes.get("output.value"), str) and not found:
        texts.append(attributes["output.value"])
    return asks, "".join(texts)


def _output_tools(attributes: Mapping[str, Any]) -> frozenset[str]:
    """The output tools a pydantic-ai model span says its request offered."""
    parameters = _json(attributes.get("model_request_parameters"))
    listed = parameters.get("output_tools") if isinstance(parameters, dict) else None
    return frozenset(
        str(tool["name"])
        for tool in (listed if isinstance(listed, list) else [])
        if isinstance(tool, dict) and tool.get("name") and tool.get("kind", "output") == "output"
    )


def _llm(node: Node, attributes: Mapping[str, Any], replay_limit: int | None) -> None:
    usage = TokenUsage(
        input=_int(_first(attributes, "gen_ai.usage.input_tokens", "llm.token_count.prompt")),
        output=_int(_first(attributes, "gen_ai.usage.output_tokens", "llm.token_count.completion")),
        cached_input=_int(
            _first(
                attributes,
                "gen_ai.usage.cache_read.input_tokens",
                "llm.token_count.prompt_details.cache_read",
            )
        ),
        cache_write_input=_int(
            _first(
                attributes,
                "gen_ai.usage.cache_creation.input_tokens",
                "llm.token_count.prompt_details.cache_write",
            )
        ),
        reasoning=_first(
            attributes,
            "gen_ai.usage.details.reasoning_tokens",
            "llm.token_count.completion_details.reasoning",
        ),
    )
    reasons = attributes.get("gen_ai.response.finish_reasons")
    asks, text = _output_parts(attributes)
    declared = _output_tools(attributes)
    outputs = [ask for ask in asks if is_output_tool(ask.name, declared)]
    listed = asked_calls(asks, limit=replay_limit)
    for entry in listed:
        if is_output_tool(entry["name"], declared):
            entry["output"] = True
    node.attributes = {
        "provider": _first(attributes, "gen_ai.provider.name", "gen_ai.system", "llm.provider"),
        "model": _first(attributes, "gen_ai.request.model", "llm.model_name"),
        "response_model": attributes.get("gen_ai.response.model"),
        **usage_attributes(usage),
        "tool_call_count": len(asks) - len(outputs),
        "tool_calls": listed,
        "text_chars": len(text),
        "stop_reason": reasons[0] if isinstance(reasons, list | tuple) and reasons else None,
    }
    if outputs:
        node.attributes["output_tool"] = outputs[0].name
        node.payload["output"] = arguments_value(outputs[0].arguments)
    if not isinstance(usage.reasoning, int):
        node.attributes.pop("reasoning_tokens", None)
    messages = _first(attributes, "gen_ai.input.messages", "llm.input_messages", "input.value")
    if messages is not None:
        node.payload["messages"] = _json(messages)
    if text:
        node.payload["response_text"] = text


def _tool(node: Node, attributes: Mapping[str, Any], span_name: str) -> None:
    name = _first(attributes, "gen_ai.tool.name", "tool.name") or span_name.removeprefix(
        "execute_tool "
    )
    arguments = _first(
        attributes, "gen_ai.tool.call.arguments", "tool_arguments", "tool.parameters", "input.value"
    )
    result = _first(attributes, "gen_ai.tool.call.result", "tool_response", "output.value")
    call_id = str(_first(attributes, "gen_ai.tool.call.id", "tool_call.id") or "")
    ask = ToolAsk(call_id, str(name), _text(arguments) if arguments is not None else "{}")
    failed = node.status == "error"
    node.name = str(name)
    observation = None if result is None else _text(result)
    node.attributes = tool_call_attributes(ask, 0, observation, failed)
    node.attributes.pop("tool_call_index")  # the step's model call tells it, see _nodes
    if not call_id:
        node.attributes.pop("tool_call_id")
    if failed:
        node.attributes["status"] = "error"
    node.payload["arguments"] = _json(arguments)
    if result is not None:
        node.payload["observation"] = _text(result)


def _error(span: Any, node: Node) -> None:
    status = getattr(span, "status", None)
    code = getattr(getattr(status, "status_code", None), "name", None)
    if code != "ERROR":
        return
    node.status = "error"
    for event in getattr(span, "events", ()) or ():
        if getattr(event, "name", "") == "exception":
            attributes = dict(getattr(event, "attributes", None) or {})
            node.attributes["error_type"] = attributes.get("exception.type")
            node.payload["error_message"] = attributes.get("exception.message")
            break
    else:
        description = getattr(status, "description", None)
        if description:
            node.payload["error_message"] = description


def _node(span: Any, replay_limit: int | None) -> Node:
    attributes = dict(getattr(span, "attributes", None) or {})
    span_name = str(getattr(span, "name", "") or "")
    node = Node(
        _kind(attributes),
        start_ns=getattr(span, "start_time", None),
        end_ns=getattr(span, "end_time", None),
    )
    _error(span, node)
    extra = dict(node.attributes)
    if node.kind == "llm.call":
        _llm(node, attributes, replay_limit)
    elif node.kind == "tool.call":
        _tool(node, attributes, span_name)
    elif node.kind == AGENT:
        agent = _first(attributes, "gen_ai.agent.name", "agent_name", "agent.name")
        node.attributes = {"agent_name": agent or span_name.removeprefix("invoke_agent ")}
    node.attributes.update({k: v for k, v in extra.items() if v is not None})
    return node


def from_otel_spans(
    spans: Iterable[Any],
    *,
    name: str = "agent.run",
    mode: TraceMode | None = None,
    max_payload_chars: int | None = None,
) -> TraceTree:
    """A ``TraceTree`` of finished OpenTelemetry spans (e.g. an ``InMemorySpanExporter``'s).

    Agent spans become ``agent.run`` (the outermost) or ``subagent.run`` (one run
    inside a tool call), model calls ``llm.call`` in ``agent.step`` levels, tool
    executions ``tool.call <tool>``; other spans give way to their children.
    Pass the spans of one run: spans of several traces go under one root.

    Args:
        spans: ``ReadableSpan`` objects, in any order.
        name: the root span's name.
        mode: ``metadata`` or ``replay`` (payloads kept, redacted); default
            ``HARNESS_TRACE_MODE``, else metadata.
        max_payload_chars: payload truncation (default 4000).
    """
    chosen = capture_mode(mode)
    limit = payload_limit(max_payload_chars)
    replay_limit = limit if chosen == "replay" else None
    nodes: dict[int, Node] = {}
    parents: dict[int, int | None] = {}
    trace_ids: list[int] = []
    for span in spans:
        context = span.context
        parent = getattr(span, "parent", None)
        nodes[context.span_id] = _node(span, replay_limit)
        parents[context.span_id] = None if parent is None else parent.span_id
        if context.trace_id not in trace_ids:
            trace_ids.append(context.trace_id)
    roots = []
    for span_id, node in nodes.items():
        parent_id = parents[span_id]
        if parent_id is not None and parent_id in nodes:
            nodes[parent_id].children.append(node)
        else:
            roots.append(node)
    trace_id = f"{trace_ids[0]:032x}" if len(trace_ids) == 1 else None
    return build_tree(
        roots,
        name=name,
        source="otel",
        trace_id=trace_id,
        mode=chosen,
        max_payload_chars=limit,
        metadata={"otel_trace_ids": [f"{t:032x}" for t in trace_ids], "spans": len(nodes)},
    )
