"""A LangChain callback handler that collects each LangGraph run as a harness trace.

Pass it in the run's config (``graph.invoke(inputs, {"callbacks": [handler]})``,
also ``stream`` / ``ainvoke`` and a resume with ``Command(resume=...)``), then
read ``handler.tree()``. LangGraph reports its runs through LangChain's
callbacks, which map to harness kinds:

- the outermost chain (the compiled graph) is the ``agent.run`` root, named by
  the graph (``agent_name``);
- a chain LangGraph tags with ``langgraph_node`` (one graph node's run, once per
  superstep) is a ``graph.node <node>`` span with its ``step``;
- a chat model run is an ``llm.call`` with model, usage, finish reason and the
  tool calls asked for; a tool run is ``tool.call <tool>`` with its id,
  arguments and result (a ``ToolNode``'s tools, or a tool called directly);
- other chains (a node's own runnables, the routing functions) give way to
  their children. A run that raised is an ``error`` span; an ``interrupt()``
  is no error: its node ends ``interrupted``.

Callbacks, not ``stream_mode="events"``: they arrive whatever way the graph is
run and need no change to how the caller consumes its output. Importing this
module imports ``langchain-core``; ``harness.testing.adapters`` imports it only
when ``LangGraphTraceHandler`` is asked for.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import ChatGeneration, LLMResult

from harness.testing.adapters._nodes import AGENT, Node, build_tree
from harness.tracing import TraceMode, TraceTree, TraceUsageError
from harness.traffic.attributes import (
    asked_calls,
    capture_mode,
    payload_limit,
    tool_call_attributes,
    usage_attributes,
)
from harness.traffic.wire import STABLE_JSON, TokenUsage, ToolAsk

__all__ = ["LangGraphTraceHandler"]

# langgraph.errors' control flow, by name (this module imports no LangGraph): an
# interrupt() pauses the run, a GraphBubbleUp (ParentCommand: Command(graph=PARENT)) routes it.
_INTERRUPT, _BUBBLE_UP = "GraphInterrupt", "GraphBubbleUp"


@dataclass
class _Run:
    node: Node
    parent: UUID | None
    children: list[UUID] = field(default_factory=list)


def _now() -> int:
    return time.time_ns()


def _usage(message: Any) -> TokenUsage:
    usage = getattr(message, "usage_metadata", None) or {}
    details = usage.get("input_token_details") or {}
    reasoning = (usage.get("output_token_details") or {}).get("reasoning")
    return TokenUsage(
        input=int(usage.get("input_tokens") or 0),
        output=int(usage.get("output_tokens") or 0),
        cached_input=int(details.get("cache_read") or 0),
        cache_write_input=int(details.get("cache_creation") or 0),
        reasoning=reasoning if isinstance(reasoning, int) else None,
    )


def _text(message: Any) -> str:
    content = getattr(message, "content", "")
    if isinstance(content, str):
        return content
    parts = [p.get("text", "") if isinstance(p, dict) else str(p) for p in content or []]
    return "".join(parts)


def _control_flow(error: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(error).__mro__} & {_INTERRUPT, _BUBBLE_UP}


class LangGraphTraceHandler(BaseCallbackHandler):
    """Collects LangGraph (LangChain) runs; ``tree()`` / ``trees()`` give them as ``TraceTree``.

    One tree per outermost run: an ``invoke`` and the ``invoke`` that resumes it
    after an ``interrupt()`` are two. Thread-safe (LangGraph runs a superstep's
    nodes on threads); see the module docstring for the mapping.

    Args:
        name: the root span's name in every tree.
        mode: ``metadata`` or ``replay`` (payloads kept, redacted; the tool
            calls' arguments for ``assert_trajectory``); default
            ``HARNESS_TRACE_MODE``, else metadata.
        max_payload_chars: payload truncation (default 4000).
    """

    raise_error = False  # a bug here must not break the run it watches
    run_inline = True  # keep begin order: spans are placed by the order runs started

    def __init__(
        self,
        *,
        name: str = "agent.run",
        mode: TraceMode | None = None,
        max_payload_chars: int | None = None,
    ) -> None:
        super().__init__()
        self._name = name
        self._mode = capture_mode(mode)
        self._limit = payload_limit(max_payload_chars)
        self._lock = threading.Lock()
        self._runs: dict[UUID, _Run] = {}
        self._roots: list[UUID] = []
        self._ask_index: dict[str, int] = {}  # a tool call id -> its place in the model's answer

    # -- the trees -----------------------------------------------------------------

    def trees(self) -> list[TraceTree]:
        """One tree per outermost run seen, in the order they began."""
        with self._lock:
            roots = list(self._roots)
        return [self._tree(root) for root in roots]

    def tree(self) -> TraceTree:
        """The tree of the one outermost run seen.

        Raises:
            TraceUsageError: no run, or several (use ``trees()``).
        """
        trees = self.trees()
        if len(trees) != 1:
            found = "no run was" if not trees else f"{len(trees)} runs were"
            raise TraceUsageError(
                f"LangGraphTraceHandler.tree() needs exactly one run, but {found} "
                'collected; pass the handler in the run\'s config ({"callbacks": [handler]}) '
                "and read trees() for several runs (a resume is one), or clear() between them"
            )
        return trees[0]

    def clear(self) -> None:
        """Forget every run collected so far."""
        with self._lock:
            self._runs.clear()
            self._roots.clear()
            self._ask_index.clear()

    def _tree(self, root: UUID) -> TraceTree:
        with self._lock:
            node = self._assemble(root)
            count = self._count(root)
        return build_tree(
            [node],
            name=self._name,
            source="langgraph",
            trace_id=None,
            mode=self._mode,
            max_payload_chars=self._limit,
            metadata={"run_id": str(root), "runs": count},
        )

    def _assemble(self, run_id: UUID) -> Node:
        run = self._runs[run_id]
        run.node.children = [self._assemble(child) for child in run.children]
        return run.node

    def _count(self, run_id: UUID) -> int:
        return 1 + sum(self._count(child) for child in self._runs[run_id].children)

    # -- bookkeeping ---------------------------------------------------------------

    def _start(self, run_id: UUID, parent: UUID | None, node: Node) -> None:
        node.start_ns = _now()
        with self._lock:
            known = parent is not None and parent in self._runs
            self._runs[run_id] = _Run(node, parent if known else None)
            if known:
                assert parent is not None
                self._runs[parent].children.append(run_id)
            else:
                self._roots.append(run_id)

    def _end(self, run_id: UUID, error: BaseException | None = None) -> Node | None:
        with self._lock:
            run = self._runs.get(run_id)
        if run is None:
            return None
        node = run.node
        node.end_ns = _now()
        flow = _control_flow(error) if error is not None else set()
        if _INTERRUPT in flow:
            node.attributes["interrupted"] = True
        elif error is not None and not flow:
            node.status = "error"
            node.attributes["error_type"] = type(error).__name__
            node.payload["error_message"] = str(error)
        return node

    # -- chains: the graph, its nodes, their runnables -----------------------------

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = kwargs.get("name") or (serialized or {}).get("name")
        graph_node = (metadata or {}).get("langgraph_node")
        with self._lock:
            outermost = parent_run_id is None or parent_run_id not in self._runs
        if outermost:
            node = Node(AGENT, None, {"agent_name": name} if name else {})
        elif (
            graph_node is not None
            and name == graph_node
            and not self._inside(parent_run_id, graph_node, (metadata or {}).get("langgraph_step"))
        ):
            attributes = {"node": graph_node, "step": (metadata or {}).get("langgraph_step")}
            node = Node("graph.node", str(graph_node), attributes)
        else:
            node = Node(None)
        self._start(run_id, parent_run_id, node)

    def _inside(self, parent: UUID | None, graph_node: Any, step: Any) -> bool:
        """Whether ``parent`` or an ancestor is already that node's span in that step
        (a node's own runnable named as the node is no second level)."""
        with self._lock:
            while parent is not None and parent in self._runs:
                run = self._runs[parent]
                if run.node.kind == "graph.node":
                    seen = run.node.attributes
                    return (seen.get("node"), seen.get("step")) == (graph_node, step)
                parent = run.parent
        return False

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, error)

    # -- model calls ---------------------------------------------------------------

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        params = kwargs.get("invocation_params") or {}
        model = (
            params.get("model") or params.get("model_name") or (metadata or {}).get("ls_model_name")
        )
        provider = (metadata or {}).get("ls_provider")
        node = Node("llm.call", None, {"provider": provider, "model": model})
        if messages:
            node.payload["messages"] = [_message(m) for m in messages[0]]
        self._start(run_id, parent_run_id, node)

    def on_llm_start(
        self,
        serialized: dict[str, Any] | None,
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        node = Node("llm.call", None, {"provider": None, "model": None})
        node.payload["prompts"] = prompts
        self._start(run_id, parent_run_id, node)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        node = self._end(run_id)
        if node is None:
            return
        generation = response.generations[0][0] if response.generations else None
        message = generation.message if isinstance(generation, ChatGeneration) else None
        metadata = getattr(message, "response_metadata", None) or {}
        asks = tuple(
            ToolAsk(str(call.get("id") or ""), call["name"], STABLE_JSON(call.get("args") or {}))
            for call in getattr(message, "tool_calls", None) or []
        )
        with self._lock:
            self._ask_index.update({ask.call_id: i for i, ask in enumerate(asks) if ask.call_id})
        text = _text(message) if message is not None else generation.text if generation else ""
        replay_limit = self._limit if self._mode == "replay" else None
        node.attributes.update(
            {
                "response_model": metadata.get("model_name"),
                **usage_attributes(_usage(message)),
                "tool_call_count": len(asks),
                "tool_calls": asked_calls(asks, limit=replay_limit),
                "text_chars": len(text),
                "stop_reason": metadata.get("finish_reason"),
            }
        )
        if not node.attributes.get("model"):
            node.attributes["model"] = metadata.get("model_name")
        if text:
            node.payload["response_text"] = text

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, error)

    # -- tools ---------------------------------------------------------------------

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        inputs: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        name = str(kwargs.get("name") or (serialized or {}).get("name") or "tool")
        arguments = inputs if inputs is not None else _arguments(input_str)
        ask = ToolAsk(str(kwargs.get("tool_call_id") or ""), name, STABLE_JSON(arguments))
        node = Node("tool.call", name, tool_call_attributes(ask, 0, None, None))
        # A tool node is no sibling of the model call that asked (the adapters' usual
        # match): the id LangChain passes, and the place that id had in the answer, tell.
        with self._lock:
            index = self._ask_index.get(ask.call_id) if ask.call_id else None
        if not ask.call_id:
            node.attributes.pop("tool_call_id")
        if index is None:
            node.attributes.pop("tool_call_index")
        else:
            node.attributes["tool_call_index"] = index
        node.payload["arguments"] = arguments
        self._start(run_id, parent_run_id, node)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        node = self._end(run_id)
        if node is None:
            return
        content = getattr(output, "content", output)
        result = content if isinstance(content, str) else STABLE_JSON(content)
        failed = getattr(output, "status", None) == "error"
        node.attributes.update(
            {
                k: v
                for k, v in tool_call_attributes(
                    ToolAsk("", node.name or "", "{}"), 0, result, failed
                ).items()
                if k in ("observation_hash", "observation_chars", "status", "is_error")
            }
        )
        if failed:
            node.status = "error"
        node.payload["observation"] = result

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        node = self._end(run_id, error)
        if node is not None and not node.attributes.get("interrupted"):
            node.attributes.update({"status": "error", "is_error": True})


def _arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return {"input": text}


def _message(message: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"role": getattr(message, "type", "unknown")}
    entry["content"] = getattr(message, "content", str(message))
    calls = getattr(message, "tool_calls", None)
    if calls:
        entry["tool_calls"] = [dict(call) for call in calls]
    if getattr(message, "tool_call_id", None):
        entry["tool_call_id"] = message.tool_call_id
    return entry
