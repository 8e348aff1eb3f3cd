"""``llm_cassette.tool_calls()``: each tool call of a test, read from its model traffic.

Whatever framework ran the agent, the model asked for its tool calls on the wire
and the agent sent their results back on the next request; the traffic trace
(``harness.traffic``) reads both for every wire. This is that trace's list of
calls in the terms a test asserts on: the tool's name, its arguments (parsed
JSON when they are JSON), and the result the agent sent back, in the order the
model asked for them (a sub-agent's calls right after the call that ran it).
Output tools (pydantic-ai's ``final_result``, smolagents' ``final_answer``:
``harness.core.output_tools``) carry the answer, not an action, so they are
left out unless ``include_output_tools`` is set, as in ``assert_trajectory``.

The trace is built in ``replay`` mode for this call only, so the arguments are
there whatever ``HARNESS_TRACE_MODE`` the process runs with; secrets in them
are redacted as in every trace payload.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.output_tools import is_output_tool
from harness.tracing import TraceSpan, TraceTree

__all__ = ["RecordedToolCall", "tool_calls_from_exchanges", "tool_calls_of"]

# Large enough that no argument or result of a test is cut.
_NO_LIMIT = 1 << 30


@dataclass(frozen=True, slots=True)
class RecordedToolCall:
    """One tool call as the model traffic shows it.

    Attributes:
        name: the tool the model asked for.
        arguments: the arguments, parsed when they are JSON (else their text).
        result: the result text the agent sent back; None when the traffic shows
            none (the test ended before the next model call, or the framework
            never sent it).
        call_id: the wire's id of the call.
        is_error: whether the agent marked the result an error (None where the
            wire has no such flag, or no result was sent).
    """

    name: str
    arguments: Any
    result: str | None = None
    call_id: str = ""
    is_error: bool | None = None


def _walk(span: TraceSpan) -> Iterator[TraceSpan]:
    yield span
    for child in span.children:
        yield from _walk(child)


def tool_calls_of(tree: TraceTree, *, include_output_tools: bool = False) -> list[RecordedToolCall]:
    """The tool calls of a ``replay``-mode traffic trace, in the order they were asked.

    Output tools (the answer, not an action) are left out unless
    ``include_output_tools`` is set.
    """
    spans = list(_walk(tree.root))
    # By id, in order: two conversations may reuse an id (a simulator's call_1).
    answers: dict[str, list[TraceSpan]] = {}
    for span in spans:
        if span.kind == "tool.call" and span.attributes.get("answered"):
            answers.setdefault(str(span.attributes.get("tool_call_id")), []).append(span)
    found: list[RecordedToolCall] = []
    for span in spans:
        if span.kind != "llm.call":
            continue
        for asked in span.attributes.get("tool_calls") or ():
            name = str(asked.get("name", ""))
            if not include_output_tools and (asked.get("output") or is_output_tool(name)):
                continue
            call_id = str(asked.get("id") or "")
            waiting = answers.get(call_id)
            answer = waiting.pop(0) if waiting else None
            payload = answer.attributes.get("payload", {}) if answer is not None else {}
            found.append(
                RecordedToolCall(
                    name=name,
                    arguments=asked.get("arguments"),
                    result=payload.get("observation"),
                    call_id=call_id,
                    is_error=answer.attributes.get("is_error") if answer is not None else None,
                )
            )
    return found


def tool_calls_from_exchanges(
    exchanges: Sequence[Any], *, include_output_tools: bool = False
) -> list[RecordedToolCall]:
    """The tool calls in ``HttpExchange`` values (``harness.traffic``), any wire."""
    from harness.traffic import trace_from_exchanges

    tree = trace_from_exchanges(exchanges, mode="replay", max_payload_chars=_NO_LIMIT)
    return tool_calls_of(tree, include_output_tools=include_output_tools)
