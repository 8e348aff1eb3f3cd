"""The placed calls of a recording as a ``TraceTree`` with harness's span kinds and attributes.

``agent.run`` > ``agent.step`` (one per model request) > ``llm.call`` then the
``tool.call <name>`` spans that answer it: the levels of harness's own runs, so
an outline written for one fits the other. A sub-agent's model and tool calls
sit in a ``subagent.run`` inside its tool call, without ``agent.step`` levels,
as harness records its own sub-agents. The attribute names are those of
harness's own spans where they mean the same (``provider``, ``model``,
``input_tokens``, ``stop_reason``, ``tool_call_id``, ``argument_hash``,
``observation_chars``, ...), so outlines, queries and the viewer read both alike.

Times are not measured (a cassette stores none): every model call is drawn
1 ms wide, with 1 ms between one call and the next, so the waterfall shows the
order and the nesting; the root says ``timing: "synthetic"``. Payload text
(messages, answers, arguments, results) is kept only in ``replay`` mode,
redacted and truncated as the Tracer does.

An output tool (``harness.core.output_tools``: pydantic-ai's ``final_result``,
smolagents' ``final_answer``, or a tool its request's definition marks as one)
is the answer, not a tool call: its ``llm.call``
names it (``output_tool``) and marks it ``output`` among its ``tool_calls``, it
counts in no ``tool_call_count`` or ``tool_calls`` total and gets no
``tool.call`` span, and its arguments are the run's answer.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from harness.core.output_tools import is_output_tool
from harness.tracing import TraceMode, TraceSpan, TraceTree, redact_text, text_digest
from harness.traffic._threads import Call, Run, Step, Tool
from harness.traffic.attributes import (
    arguments_value,
    asked_calls,
    payload_value,
    tool_call_attributes,
    usage_attributes,
)

__all__ = ["SLOT_MS", "build_tree"]

SLOT_MS = 2.0  # one model call (1 ms) and the agent's turn after it (1 ms)
_ERROR_CHARS = 500


class _Builder:
    def __init__(self, trace_id: str, origin: datetime, mode: TraceMode, limit: int) -> None:
        self.trace_id = trace_id
        self.origin = origin
        self.replay = mode == "replay"
        self.limit = limit
        self.sequence = 0

    def at(self, ms: float) -> str:
        return (self.origin + timedelta(milliseconds=ms)).isoformat().replace("+00:00", "Z")

    def span(
        self, kind: str, name: str | None, parent: str | None, attributes: dict[str, Any]
    ) -> TraceSpan:
        sequence, self.sequence = self.sequence, self.sequence + 1
        return TraceSpan(
            span_id=f"{sequence:04x}",
            parent_id=parent,
            trace_id=self.trace_id,
            kind=kind,
            name=name or kind,
            started_at=self.at(0),
            sequence=sequence,
            attributes=attributes,
        )

    def close(self, span: TraceSpan, start: float, end: float) -> None:
        span.started_at, span.ended_at = self.at(start), self.at(end)
        span.duration_ms = round(end - start, 3)

    def payload(self, span: TraceSpan, key: str, value: Any) -> None:
        if self.replay:
            span.attributes.setdefault("payload", {})[key] = payload_value(value, self.limit)

    # -- spans ---------------------------------------------------------------------

    def run(self, run: Run, span: TraceSpan, *, steps: bool = True) -> tuple[float, float]:
        """Fill ``span`` with the run's items; return its (start, end) in ms.

        Without ``steps`` (a sub-agent, as harness's own subagent runs record it)
        the model and tool calls sit in ``span`` directly.
        """
        bounds: list[tuple[float, float]] = []
        step_number = 0
        for item in run.items:
            if isinstance(item, Step):
                step_number += 1
                bounds.append(self.step(item, span, step_number, steps))
            elif not is_output_tool(item.ask.name):  # an earlier answer, carried over
                at = item.answered_by * SLOT_MS if item.answered_by is not None else 0.0
                bounds.append(self.tool(item, span, at, at))
        if not bounds:
            return 0.0, 0.0
        return min(b[0] for b in bounds), max(b[1] for b in bounds)

    def step(
        self, step: Step, parent: TraceSpan, number: int, own_span: bool
    ) -> tuple[float, float]:
        call = step.call
        span = parent
        if own_span:
            attributes = {
                "step": number,
                "conversation": step.conversation,
                "message_count": len(call.request.messages),
                "exchange_index": call.index,
            }
            span = self.span("agent.step", None, parent.span_id, attributes)
            parent.children.append(span)
        start = call.index * SLOT_MS
        end = start + 1.0
        span.children.append(self.llm(call, span, start, end))
        declared = call.request.output_tools
        for tool in step.tools:
            if (tool.result is None and not tool.runs) or is_output_tool(tool.ask.name, declared):
                continue  # asked, never answered, or the answer: on the llm.call only
            finish = tool.answered_by * SLOT_MS if tool.answered_by is not None else end
            end = max(end, self.tool(tool, span, start + 1.0, finish)[1])
        if own_span:
            if call.response.failed:
                span.status = "error"
            self.close(span, start, end)
        return start, end

    def llm(self, call: Call, parent: TraceSpan, start: float, end: float) -> TraceSpan:
        request, response = call.request, call.response
        listed = asked_calls(response.asks, limit=self.limit if self.replay else None)
        declared = request.output_tools
        outputs = [ask for ask in response.asks if is_output_tool(ask.name, declared)]
        for entry in listed:
            if is_output_tool(entry["name"], declared):
                entry["output"] = True
        attributes: dict[str, Any] = {
            "provider": request.wire,
            "model": request.model or response.model,
            "response_model": response.model,
            "stream": request.stream,
            "http_status": response.status,
            "message_count": len(request.messages),
            "tool_choice": request.tool_choice,
            "visible_tools": list(request.tools),
            **usage_attributes(response.usage),
            "tool_call_count": len(response.asks) - len(outputs),
            "tool_calls": listed,
            "text_chars": len(response.text),
            "stop_reason": response.stop_reason,
            "exchange_index": call.index,
        }
        if response.server_tool_calls:
            attributes["server_tool_calls"] = response.server_tool_calls
        if outputs:
            attributes["output_tool"] = outputs[0].name
        span = self.span("llm.call", None, parent.span_id, attributes)
        if response.failed:
            span.status = "error"
            message = redact_text(response.error_message or "")[:_ERROR_CHARS]
            span.attributes.update(error_type=response.error_type, error_message=message)
        if request.system:
            self.payload(span, "system", request.system)
        self.payload(span, "messages", list(request.messages))
        if response.text:
            self.payload(span, "response_text", response.text)
        if outputs:
            self.payload(span, "output", arguments_value(outputs[0].arguments))
        self.close(span, start, end)
        return span

    def tool(self, tool: Tool, parent: TraceSpan, start: float, end: float) -> tuple[float, float]:
        ask, result = tool.ask, tool.result
        attributes = tool_call_attributes(
            ask,
            tool.position,
            None if result is None else result.output,
            None if result is None else result.is_error,
        )
        attributes["answered"] = result is not None
        if result is not None:
            attributes["answered_in"] = tool.answered_by
        if not tool.asked:
            attributes["asked_in_recording"] = False
        span = self.span("tool.call", ask.name, parent.span_id, attributes)
        parent.children.append(span)
        self.payload(span, "arguments", arguments_value(ask.arguments))
        if result is not None:
            self.payload(span, "observation", result.output)
            if result.is_error:
                span.status = "error"
        for run in tool.runs:
            child = self.span(
                "subagent.run", None, span.span_id, {"conversation": run.conversation}
            )
            _describe(child, "prompt", run.prompt)
            span.children.append(child)
            first, last = self.run(run, child, steps=False)
            self.close(child, first, last)
            end = max(end, last)
        self.close(span, start, end)
        return start, end


def _describe(span: TraceSpan, key: str, text: str | None) -> None:
    if text is not None:
        span.attributes[f"{key}_hash"] = text_digest(text)
        span.attributes[f"{key}_chars"] = len(text)


def build_tree(
    top: Run,
    calls: list[Call],
    *,
    name: str,
    trace_id: str,
    origin: datetime,
    mode: TraceMode,
    max_payload_chars: int,
    metadata: dict[str, Any],
) -> TraceTree:
    """The trace of ``top`` (from ``place_calls``) over ``calls``, as described above."""
    builder = _Builder(trace_id, origin, mode, max_payload_chars)
    root = builder.span("agent.run", name, None, {})
    _, end = builder.run(top, root)
    builder.close(root, 0.0, max(end, len(calls) * SLOT_MS - 1.0, 0.0))
    root.attributes.update(_totals(calls, top))
    _describe(root, "prompt", top.prompt)
    answer = _last_answer(top)
    _describe(root, "answer", answer)
    if answer is not None:
        builder.payload(root, "answer", answer)
    return TraceTree(
        capture_mode="replay" if mode == "replay" else "metadata",
        trace_id=trace_id,
        created_at=builder.at(0),
        root=root,
        metadata=metadata,
    )


def _totals(calls: list[Call], top: Run) -> dict[str, Any]:
    """The root's figures. As on harness's own ``agent.run``, ``steps``, ``tool_calls``
    and the tokens are the top-level run's (a sub-agent's are its own); ``llm_calls``
    and the ``total_*`` tokens count every model call of the recording."""
    responses = [call.response for call in calls]
    steps = [item for item in top.items if isinstance(item, Step)]
    own = [step.call.response for step in steps]
    last = own[-1] if own else None
    return {
        "source": "traffic",
        "timing": "synthetic",
        "providers": sorted({call.request.wire for call in calls}),
        "models": sorted({m for call in calls if (m := call.request.model or call.response.model)}),
        "steps": len(steps),
        "llm_calls": len(calls),
        "tool_calls": _tool_count(top, nested=False),
        "all_tool_calls": _tool_count(top, nested=True),
        "input_tokens": sum(r.usage.input for r in own),
        "output_tokens": sum(r.usage.output for r in own),
        "cached_input_tokens": sum(r.usage.cached_input for r in own),
        "total_input_tokens": sum(r.usage.input for r in responses),
        "total_output_tokens": sum(r.usage.output for r in responses),
        "errors": sum(1 for r in responses if r.failed),
        "stop_reason": None if last is None else ("error" if last.failed else last.stop_reason),
    }


def _tool_count(run: Run, *, nested: bool) -> int:
    total = 0
    for item in run.items:
        tools = item.tools if isinstance(item, Step) else [item]
        declared = item.call.request.output_tools if isinstance(item, Step) else frozenset()
        for tool in tools:
            total += tool.result is not None and not is_output_tool(tool.ask.name, declared)
            if nested:
                total += sum(_tool_count(child, nested=True) for child in tool.runs)
    return total


def _last_answer(run: Run) -> str | None:
    """The last answer: an output tool's arguments (as sent), else the response text."""
    steps = [item for item in run.items if isinstance(item, Step)]
    for step in reversed(steps):
        response = step.call.response
        if not response.failed:
            declared = step.call.request.output_tools
            output = next((a for a in response.asks if is_output_tool(a.name, declared)), None)
            return output.arguments if output is not None else response.text
    return None
