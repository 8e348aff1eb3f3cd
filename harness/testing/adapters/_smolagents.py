"""A smolagents agent's memory as a harness trace: its own steps and tool calls.

smolagents keeps each run in ``agent.memory.steps``. A ``ToolCallingAgent``
sends tool calls and results to the model as it likes (plain text for a
``CodeAgent``), so the wire alone shows no tool calls; its memory does:

- each ``ActionStep`` is an ``agent.step`` with one ``llm.call`` (its tokens,
  and the tool calls the model asked for) and a ``tool.call <tool>`` per call,
  the step's observations as the result when it made one call;
- ``final_answer`` (``harness.core.output_tools``) is the answer, not a tool
  call: the root's ``answer_hash`` / ``answer_chars`` (and ``answer`` payload in
  replay mode), marked ``output`` among its model call's asks;
- a managed agent called as a tool is a ``subagent.run`` inside that tool call,
  built from the managed agent's own steps. smolagents resets a managed agent's
  memory on each call, so its memory holds only the last call: an agent passed
  to ``watch_smolagents`` before it runs keeps every call's steps (a step
  callback on each managed agent), and each call is the sub-run of the tool
  call it ran in (the one whose step's time holds it); unwatched, only the
  last call of each managed agent has its sub-run;
- a step that failed (``step.error``) is status ``error``, as are its tool calls;
- a ``CodeAgent``'s step shows the one call smolagents notes for it
  (``python_interpreter``, the code as its argument); planning steps are left out.

smolagents is not imported here: the agent is read by duck typing, so this
module loads with the adapters package and needs no stubs (``watch_smolagents``
imports it when called, for the step class its callback registers on).
"""

from __future__ import annotations

import importlib
import json
import weakref
from typing import Any

from harness.core.output_tools import is_output_tool
from harness.testing.adapters._nodes import AGENT, Node, build_tree
from harness.tracing import TraceMode, TraceTree, TraceUsageError, text_digest
from harness.traffic.attributes import (
    asked_calls,
    capture_mode,
    payload_limit,
    payload_value,
    tool_call_attributes,
)
from harness.traffic.wire import ToolAsk

__all__ = ["from_smolagents", "watch_smolagents"]


class _CallLog:
    """A step callback that keeps each call's steps, which the agent's memory forgets
    when the next call resets it. A call ends with its final answer step; an action
    step numbered 1 after an action step opens a new one too (a call that raised has
    no final answer step; a planning step before step 1 belongs to its call)."""

    def __init__(self) -> None:
        self.calls: list[list[Any]] = []
        self._open = False

    def __call__(self, step: Any, agent: Any = None) -> None:
        if not hasattr(step, "timing"):  # FinalAnswerStep: the call is over
            self._open = False
            return
        restarted = (
            self._open
            and getattr(step, "step_number", None) == 1
            and any(hasattr(kept, "step_number") for kept in self.calls[-1])
        )
        if not self._open or restarted:
            self.calls.append([])
            self._open = True
        self.calls[-1].append(step)


# Each watched agent's log, kept only as long as the agent lives.
_LOGS: weakref.WeakKeyDictionary[Any, _CallLog] = weakref.WeakKeyDictionary()


def watch_smolagents(agent: Any) -> Any:
    """Keep every call of ``agent``'s managed agents for ``from_smolagents``; returns ``agent``.

    smolagents clears a managed agent's memory each time it is called, so after
    a run its memory holds only the last call. Call this once, before running:
    it registers a step callback on each managed agent (and theirs, at any
    depth) that keeps the steps of every call. Watching twice changes nothing.

    Raises:
        TraceUsageError: ``agent`` is not a smolagents agent.
    """
    _action_steps(agent)  # the same check, the same message
    # The agent exists, so smolagents is installed; every step class derives from this.
    step_class = importlib.import_module("smolagents.memory").MemoryStep
    for child in dict(getattr(agent, "managed_agents", None) or {}).values():
        if child not in _LOGS:
            log = _LOGS[child] = _CallLog()
            child.step_callbacks.register(step_class, log)
        watch_smolagents(child)
    return agent


def _ns(seconds: float | None) -> int | None:
    return None if seconds is None else int(seconds * 1_000_000) * 1000


def _arguments(value: Any) -> str:
    """Tool arguments as JSON text, as a wire would carry them."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _asks(step: Any) -> list[ToolAsk]:
    calls = getattr(step, "tool_calls", None)
    if calls:
        return [ToolAsk(str(c.id or ""), str(c.name), _arguments(c.arguments)) for c in calls]
    # A step whose tool raised keeps no tool_calls: the model's message still has them.
    asked = getattr(getattr(step, "model_output_message", None), "tool_calls", None) or []
    return [
        ToolAsk(str(c.id or ""), str(c.function.name), _arguments(c.function.arguments))
        for c in asked
        if getattr(c, "function", None) is not None
    ]


def _llm(step: Any, asks: list[ToolAsk], model: str, replay_limit: int | None) -> Node:
    usage = getattr(step, "token_usage", None)
    listed = asked_calls(asks, limit=replay_limit)
    for entry in listed:
        if is_output_tool(entry["name"]):
            entry["output"] = True
    outputs = [ask.name for ask in asks if is_output_tool(ask.name)]
    attributes: dict[str, Any] = {
        "provider": "smolagents",
        "model": model,
        "input_tokens": int(getattr(usage, "input_tokens", 0) or 0),
        "output_tokens": int(getattr(usage, "output_tokens", 0) or 0),
        "tool_call_count": len(asks) - len(outputs),
        "tool_calls": listed,
    }
    if outputs:
        attributes["output_tool"] = outputs[0]
    timing = getattr(step, "timing", None)
    node = Node("llm.call", None, attributes)
    node.start_ns = _ns(getattr(timing, "start_time", None))
    if getattr(step, "error", None) is not None and not asks:
        node.status = "error"  # the model's answer was unusable (a parsing error)
    output = getattr(step, "model_output", None)
    if isinstance(output, str) and output:
        node.payload["response_text"] = output
    return node


def _step(
    agent: Any, step: Any, subruns: dict[tuple[int, int], Node], replay_limit: int | None
) -> Node:
    asks = _asks(step)
    timing = getattr(step, "timing", None)
    start, end = _ns(getattr(timing, "start_time", None)), _ns(getattr(timing, "end_time", None))
    failed = getattr(step, "error", None) is not None
    number = getattr(step, "step_number", None)
    node = Node("agent.step", None, {"step": number, "agent_name": _name(agent)}, start, end)
    model = str(getattr(getattr(agent, "model", None), "model_id", "") or "")
    node.children.append(_llm(step, asks, model, replay_limit))
    tools = [ask for ask in asks if not is_output_tool(ask.name)]
    observations = getattr(step, "observations", None)
    for index, ask in enumerate(tools):
        result = observations if isinstance(observations, str) and len(tools) == 1 else None
        tool = Node("tool.call", ask.name, tool_call_attributes(ask, index, result, failed))
        tool.start_ns, tool.end_ns = start, end
        if failed:
            tool.status = "error"
            tool.attributes["status"] = "error"
        tool.payload = {"arguments": json.loads(_arguments_json(ask.arguments))}
        if result:
            tool.payload["observation"] = result
        sub = subruns.pop(_key(step, index), None)
        if sub is not None:
            tool.children.append(sub)
        node.children.append(tool)
    if failed:
        node.status = "error"
        node.attributes["error"] = type(step.error).__name__
    return node


def _arguments_json(text: str) -> str:
    try:
        json.loads(text)
    except ValueError:
        return json.dumps(text)
    return text


def _key(step: Any, index: int) -> tuple[int, int]:
    return id(step), index


def _name(agent: Any) -> str:
    return str(getattr(agent, "name", None) or type(agent).__name__)


def _action_steps(agent: Any) -> list[Any]:
    memory = getattr(agent, "memory", None)
    steps = getattr(memory, "steps", None)
    if steps is None:
        raise TraceUsageError(
            f"from_smolagents() needs a smolagents agent (with .memory.steps), "
            f"got {type(agent).__name__}; pass the agent after agent.run(...)"
        )
    return [step for step in steps if hasattr(step, "step_number") and hasattr(step, "timing")]


def _calling(steps: list[Any], name: str) -> list[tuple[Any, int]]:
    """Each ``(step, index)`` of a call of the tool ``name``, in order."""
    return [
        (step, index)
        for step in steps
        for index, ask in enumerate(a for a in _asks(step) if not is_output_tool(a.name))
        if ask.name == name
    ]


def _within(step: Any, call: list[Any]) -> bool:
    """Whether the logged ``call`` began during ``step`` (its tools run inside it)."""
    timing = getattr(step, "timing", None)
    start, end = getattr(timing, "start_time", None), getattr(timing, "end_time", None)
    began = getattr(getattr(call[0], "timing", None), "start_time", None)
    if start is None or began is None:
        return False
    return start <= began and (end is None or began <= end)


def _subruns(agent: Any, steps: list[Any], replay_limit: int | None) -> dict[tuple[int, int], Node]:
    """Each managed agent's run, keyed by the tool call it ran in (see the docstring)."""
    subruns: dict[tuple[int, int], Node] = {}
    for name, child in dict(getattr(agent, "managed_agents", None) or {}).items():
        calling = _calling(steps, name)
        log = _LOGS.get(child)
        if log is None:  # unwatched: its memory holds its last call only
            if calling and _action_steps(child):
                subruns[_key(*calling[-1])] = _agent_node(child, _action_steps(child), replay_limit)
            continue
        taken: set[int] = set()
        for step, index in calling:
            found = next(
                (n for n, call in enumerate(log.calls) if n not in taken and _within(step, call)),
                None,
            )
            if found is not None:
                taken.add(found)
                call = [s for s in log.calls[found] if hasattr(s, "step_number")]
                subruns[_key(step, index)] = _agent_node(child, call, replay_limit)
    return subruns


def _agent_node(agent: Any, steps: list[Any], replay_limit: int | None) -> Node:
    """The agent's run of ``steps``, each managed agent's run inside its calling tool."""
    subruns = _subruns(agent, steps, replay_limit)
    node = Node(AGENT, None, {"agent_name": _name(agent)})
    node.children = [_step(agent, step, subruns, replay_limit) for step in steps]
    starts = [c.start_ns for c in node.children if c.start_ns is not None]
    ends = [c.end_ns for c in node.children if c.end_ns is not None]
    node.start_ns, node.end_ns = min(starts, default=None), max(ends, default=None)
    return node


def _answer(agent: Any) -> str | None:
    for step in reversed(_action_steps(agent)):
        if not getattr(step, "is_final_answer", False):
            continue
        output = getattr(step, "action_output", None)  # a CodeAgent's; ToolCallingAgent's is None
        if output is not None:
            return str(output)
        for call in getattr(step, "tool_calls", None) or []:
            if is_output_tool(str(call.name)):  # final_answer(answer=...) returns its answer
                arguments = call.arguments
                if isinstance(arguments, dict) and "answer" in arguments:
                    return str(arguments["answer"])
                return str(arguments)
    return None


def from_smolagents(
    agent: Any,
    *,
    name: str = "smolagents",
    mode: TraceMode | None = None,
    max_payload_chars: int | None = None,
) -> TraceTree:
    """The trace of ``agent``'s last run, from its memory (see the module docstring).

    Pass the agent to ``watch_smolagents`` before running it for every call of
    its managed agents; otherwise a managed agent shows its last call only.

    Args:
        agent: a smolagents ``ToolCallingAgent`` or ``CodeAgent`` after ``run()``.
        name: the root span's name.
        mode: ``metadata`` or ``replay`` (payloads kept, redacted and truncated);
            default ``HARNESS_TRACE_MODE``, else metadata.
        max_payload_chars: the replay payload limit (default 4000).

    Raises:
        TraceUsageError: ``agent`` has no smolagents memory.
    """
    chosen = capture_mode(mode)
    limit = payload_limit(max_payload_chars)
    replay_limit = limit if chosen == "replay" else None
    root = _agent_node(agent, _action_steps(agent), replay_limit)
    answer = _answer(agent)
    tree = build_tree(
        [root],
        name=name,
        source="smolagents",
        trace_id=None,
        mode=chosen,
        max_payload_chars=limit,
        metadata={"agent": _name(agent), "steps": len(root.children)},
    )
    if answer is not None:
        tree.root.attributes["answer_hash"] = text_digest(answer)
        tree.root.attributes["answer_chars"] = len(answer)
        if chosen == "replay":
            tree.root.attributes.setdefault("payload", {})["answer"] = payload_value(answer, limit)
    return tree
