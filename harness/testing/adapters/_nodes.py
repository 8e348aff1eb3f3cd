"""Another framework's spans, mapped to harness kinds, shaped like harness's own traces.

An adapter turns each foreign span into a :class:`Node`: a harness kind
(``llm.call``, ``tool.call``, ``agent.step``, ``handoff``, ``guardrail``), an
``agent`` (an agent's own run), or ``None`` for a span harness has no kind for
(HTTP, a framework's internal grouping), which gives way to its children.
:func:`build_tree` then shapes the nodes as harness records a run, so one
outline fits harness's trace, the traffic trace and the framework's:

- the outermost agent (or run) is the ``agent.run`` root; an agent started
  inside a tool call is a ``subagent.run`` there (a run's own root inside it,
  such as the Agents SDK's ``task`` of ``agent.as_tool()``, is no level); an
  agent inside an agent with no tool call between (the Agents SDK's run >
  agent, a handoff's next agent) is no level of its own: its steps carry its
  ``agent_name``;
- the root's model calls are grouped in ``agent.step`` spans, one per model
  call with the tool calls after it (a framework's own turns are kept as
  steps); a sub-agent's calls sit in its ``subagent.run`` directly;
- a tool call without an id takes the id of the first call of that name its
  step's model call asked for and no earlier tool call took;
- spans of several roots go under one ``agent.run``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

from harness.tracing import SpanStatus, TraceMode, TraceSpan, TraceTree
from harness.traffic.attributes import payload_value

__all__ = ["AGENT", "Node", "build_tree", "ns_of_iso"]

AGENT: Literal["agent"] = "agent"
_IN_STEP = ("tool.call", "handoff", "guardrail")


@dataclass
class Node:
    """One foreign span, mapped. ``kind`` None: no harness kind, its children take its place."""

    kind: str | None
    name: str | None = None
    attributes: dict[str, Any] = field(default_factory=dict)
    start_ns: int | None = None
    end_ns: int | None = None
    status: SpanStatus = "ok"
    payload: dict[str, Any] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)


def ns_of_iso(value: str | None) -> int | None:
    """Nanoseconds since the epoch of an ISO-8601 time, or None."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1_000_000) * 1000


def _ordered(nodes: list[Node]) -> list[Node]:
    # Begin order, as harness stores children; spans without a time keep their place.
    keyed = [(n.start_ns if n.start_ns is not None else -1, i, n) for i, n in enumerate(nodes)]
    return [n for _, _, n in sorted(keyed, key=lambda k: (k[0], k[1]))]


def _resolve(node: Node, *, in_agent: bool, in_tool: bool, agent_name: str | None) -> list[Node]:
    """``node`` with its subtree mapped, as the nodes that take its place."""
    if node.kind == AGENT:
        name = node.attributes.get("agent_name") or agent_name
        if in_tool:
            kind: str | None = "subagent.run"
        elif not in_agent:
            kind = "agent.run"
        else:
            kind = None
        children = _children(node, in_agent=True, in_tool=False, agent_name=name)
        if kind == "subagent.run":
            children = _flatten_steps(children)
        if kind is None:
            return children
        return [_replace(node, kind, children)]
    if node.kind == "agent.run" and (in_agent or in_tool):
        node = _replace(node, None, node.children)  # a nested run's own root: its agent tells
    below_tool = in_tool or node.kind == "tool.call"
    children = _children(
        node, in_agent=in_agent or node.kind == "agent.run", in_tool=below_tool,
        agent_name=agent_name,
    )  # fmt: skip
    if node.kind is None:
        return children
    if node.kind in ("agent.step", "llm.call") and agent_name:
        node.attributes.setdefault("agent_name", agent_name)
    return [_replace(node, node.kind, children)]


def _children(node: Node, **context: Any) -> list[Node]:
    resolved: list[Node] = []
    for child in _ordered(node.children):
        resolved += _resolve(child, **context)
    return resolved


def _replace(node: Node, kind: str | None, children: list[Node]) -> Node:
    return Node(
        kind, node.name, node.attributes, node.start_ns, node.end_ns, node.status,
        node.payload, children,
    )  # fmt: skip


def _flatten_steps(nodes: list[Node]) -> list[Node]:
    flat: list[Node] = []
    for node in nodes:
        flat += node.children if node.kind == "agent.step" else [node]
    return flat


def _group_steps(root: Node) -> None:
    """Give the root run's model calls ``agent.step`` levels, as harness records them."""
    if any(child.kind == "agent.step" for child in root.children):
        return
    grouped: list[Node] = []
    step: Node | None = None
    for child in root.children:
        if child.kind == "llm.call":
            agent = child.attributes.get("agent_name")
            step = Node("agent.step", None, {"agent_name": agent} if agent else {})
            step.start_ns = child.start_ns
            grouped.append(step)
        elif step is None or child.kind not in _IN_STEP:
            grouped.append(child)  # before the first model call (an input guardrail)
            continue
        step.children.append(child)
        ends = [t for t in (step.end_ns, child.end_ns) if t is not None]
        step.end_ns = max(ends) if ends else None
        if child.kind == "llm.call" and child.status == "error":
            step.status = "error"
    root.children = grouped
    for number, node in enumerate((n for n in grouped if n.kind == "agent.step"), start=1):
        node.attributes.setdefault("step", number)


def _match_tool_ids(node: Node) -> None:
    """Fill ``tool_call_id`` / ``tool_call_index`` of tool calls from their model call's asks."""
    asked: list[dict[str, Any]] = []
    taken: set[int] = set()
    for child in node.children:
        if child.kind == "llm.call":
            asked, taken = list(child.attributes.get("tool_calls") or []), set()
        elif child.kind == "tool.call":
            index = _ask_of(child, asked, taken)
            if index is not None:
                taken.add(index)
                child.attributes.setdefault("tool_call_id", asked[index].get("id"))
                child.attributes.setdefault("tool_call_index", index)
        _match_tool_ids(child)


def _ask_of(tool: Node, asked: list[dict[str, Any]], taken: set[int]) -> int | None:
    """Which ask ``tool`` answers: by id, else by name and arguments, else by name."""
    known = tool.attributes.get("tool_call_id")
    wanted = (tool.name, tool.attributes.get("argument_hash"))
    tests: list[Callable[[dict[str, Any]], bool]] = (
        [lambda ask: ask.get("id") == known]
        if known
        else [
            lambda ask: (ask.get("name"), ask.get("argument_hash")) == wanted,
            lambda ask: ask.get("name") == tool.name,
        ]
    )
    for test in tests:
        for index, ask in enumerate(asked):
            if index not in taken and test(ask):
                return index
    return None


class _Emitter:
    def __init__(self, trace_id: str, origin_ns: int, replay: bool, limit: int) -> None:
        self.trace_id, self.origin_ns = trace_id, origin_ns
        self.replay, self.limit = replay, limit
        self.sequence = 0

    @staticmethod
    def iso(ns: int) -> str:
        moment = datetime.fromtimestamp(ns // 1000 / 1_000_000, tz=UTC)
        return moment.isoformat().replace("+00:00", "Z")

    def emit(self, node: Node, parent: TraceSpan | None, at_ns: int) -> TraceSpan:
        start = node.start_ns if node.start_ns is not None else at_ns
        end = node.end_ns if node.end_ns is not None and node.end_ns >= start else start
        sequence, self.sequence = self.sequence, self.sequence + 1
        kind = node.kind or "span"
        attributes = dict(node.attributes)
        if self.replay and node.payload:
            attributes["payload"] = {
                key: payload_value(value, self.limit) for key, value in node.payload.items()
            }
        span = TraceSpan(
            span_id=f"{sequence:04x}",
            parent_id=None if parent is None else parent.span_id,
            trace_id=self.trace_id,
            kind=kind,
            name=node.name or kind,
            started_at=self.iso(start),
            ended_at=self.iso(end),
            duration_ms=round((end - start) / 1_000_000, 3),
            sequence=sequence,
            status=node.status,
            attributes=attributes,
        )
        span.children = [self.emit(child, span, start) for child in node.children]
        return span


def _totals(root: TraceSpan) -> dict[str, Any]:
    own = [s for s in _walk(root, stop="subagent.run") if s.kind == "llm.call"]
    every = [s for s in _walk(root) if s.kind == "llm.call"]
    tools = [s for s in _walk(root, stop="subagent.run") if s.kind == "tool.call"]
    steps = [s for s in root.children if s.kind == "agent.step"]
    return {
        "steps": len(steps),
        "llm_calls": len(every),
        "tool_calls": len(tools),
        "input_tokens": sum(int(s.attributes.get("input_tokens") or 0) for s in own),
        "output_tokens": sum(int(s.attributes.get("output_tokens") or 0) for s in own),
    }


def _walk(span: TraceSpan, stop: str | None = None) -> list[TraceSpan]:
    found, stack = [], list(reversed(span.children))
    while stack:
        current = stack.pop()
        found.append(current)
        if current.kind != stop:
            stack.extend(reversed(current.children))
    return found


def build_tree(
    roots: list[Node],
    *,
    name: str,
    source: str,
    trace_id: str | None,
    mode: TraceMode,
    max_payload_chars: int,
    metadata: dict[str, Any],
) -> TraceTree:
    """The trace of the mapped ``roots`` (see the module docstring)."""
    resolved: list[Node] = []
    for root in _ordered(roots):
        resolved += _resolve(root, in_agent=False, in_tool=False, agent_name=None)
    if len(resolved) == 1 and resolved[0].kind == "agent.run":
        top = resolved[0]
    else:
        starts = [n.start_ns for n in resolved if n.start_ns is not None]
        ends = [n.end_ns for n in resolved if n.end_ns is not None]
        top = Node("agent.run", None, {}, min(starts, default=None), max(ends, default=None))
        top.children = resolved
    agent_name = top.attributes.pop("agent_name", None)
    top.name = name
    if agent_name:
        top.attributes["agent_name"] = agent_name
    _group_steps(top)
    _match_tool_ids(top)
    origin = top.start_ns if top.start_ns is not None else 0
    chosen = trace_id or hashlib.blake2b(repr(metadata).encode(), digest_size=16).hexdigest()
    emitter = _Emitter(chosen, origin, mode == "replay", max_payload_chars)
    span = emitter.emit(top, None, origin)
    span.attributes = {"source": source, **span.attributes, **_totals(span)}
    return TraceTree(
        capture_mode="replay" if mode == "replay" else "metadata",
        trace_id=chosen,
        created_at=span.started_at,
        root=span,
        metadata={"source": source, **metadata},
    )
