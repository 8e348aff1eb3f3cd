"""ToolExecutor: runs one model turn's tool calls, reads concurrently, others alone."""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.messages import RAW_ARGUMENTS_KEY, Message, ToolCall
from harness.engine._arguments import check_arguments
from harness.engine._observations import observation_message
from harness.session import SessionRef
from harness.tools import ToolExecutionContext, ToolExecutionResult, ToolInput, ToolRegistry
from harness.tracing import NullTracer, Tracer, TraceSpan

__all__ = ["PARALLEL_SAFE_TOOL_NAMES", "CheckpointDraftFactory", "ToolBatchResult", "ToolExecutor"]

logger = logging.getLogger("harness.tools")

# Only tools that neither change the workspace nor depend on order may overlap.
PARALLEL_SAFE_TOOL_NAMES = frozenset({"read"})

CheckpointDraftFactory = Callable[[int, tuple[Message, ...]], Any]
"""``(index of the call, observations completed before it) -> checkpoint draft``."""


@dataclass(frozen=True, slots=True)
class ToolBatchResult:
    """Observations in the model's order; stops at the first suspended call."""

    observations: tuple[Message, ...]
    results: tuple[ToolExecutionResult, ...]
    suspended: ToolExecutionResult | None = None
    suspended_index: int | None = None


@dataclass(frozen=True, slots=True)
class _Call:
    index: int
    call: ToolCall


class ToolExecutor:
    """Executes tool calls through the registry's middleware chain.

    Consecutive parallel-safe calls run together on a thread pool of
    ``max_parallel_tools`` workers; any other call is a barrier run alone, in
    order. Unknown or invisible tools, malformed arguments and exceptions become
    error observations: the model reads what went wrong, the run goes on.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        *,
        tracer: Tracer | None = None,
        max_parallel_tools: int = 8,
        log_tag: str | None = None,
    ) -> None:
        self.registry = registry
        self.tracer: Tracer = tracer or NullTracer()
        self.max_parallel_tools = max(1, max_parallel_tools)
        self.log_tag = log_tag
        self._pool: ThreadPoolExecutor | None = None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def run_tool_batch(
        self,
        tool_calls: Sequence[ToolCall],
        *,
        visible_tool_names: Sequence[str],
        workdir: Path,
        session: SessionRef | None = None,
        step: int = 0,
        draft_factory: CheckpointDraftFactory | None = None,
        first_index: int = 0,
        metadata: dict[str, Any] | None = None,
    ) -> ToolBatchResult:
        """Run ``tool_calls`` and return their observations in the model's order.

        ``first_index`` numbers the calls when a resumed run continues a batch.
        """
        env = _BatchEnv(
            tuple(visible_tool_names), workdir, session, step, draft_factory, metadata or {}
        )
        observations: list[Message] = []
        results: list[ToolExecutionResult] = []
        for group in _groups(tool_calls, first_index):
            group_results = self._run_group(group, env, tuple(observations))
            for item, result in zip(group, group_results, strict=True):
                results.append(result)
                if result.suspended_flag:
                    return ToolBatchResult(tuple(observations), tuple(results), result, item.index)
                observations.append(observation_message(item.call, result))
        return ToolBatchResult(tuple(observations), tuple(results))

    def _run_group(
        self, group: list[_Call], env: _BatchEnv, done: tuple[Message, ...]
    ) -> list[ToolExecutionResult]:
        if len(group) == 1:
            item = group[0]
            span = self._begin_span(item)
            return [self._run_one(item, env, span, done)]
        # Which calls ran together is a decision of this executor, so the trace
        # states it; overlapping timestamps alone would prove nothing either way.
        together = {"parallel_group": group[0].index, "parallel_size": len(group)}
        pool = self._pool or self._make_pool()
        parent_state = self.tracer.current_state()
        futures: list[Future[ToolExecutionResult]] = []
        for item in group:
            # Spans are opened here, in call order, so the trace lists them by
            # tool_call_index whatever order the workers finish in.
            with self.tracer.attach(parent_state):
                span = self._begin_span(item, together)
                span_state = self.tracer.current_state()
            futures.append(pool.submit(self._run_attached, span_state, item, env, span, done))
        return [future.result() for future in futures]

    def _make_pool(self) -> ThreadPoolExecutor:
        self._pool = ThreadPoolExecutor(self.max_parallel_tools, thread_name_prefix="harness-tool")
        return self._pool

    def _run_attached(
        self, state: Any, item: _Call, env: _BatchEnv, span: TraceSpan, done: tuple[Message, ...]
    ) -> ToolExecutionResult:
        with self.tracer.attach(state):
            return self._run_one(item, env, span, done)

    def _begin_span(self, item: _Call, together: dict[str, int] | None = None) -> TraceSpan:
        tracer = self.tracer
        if not tracer.enabled:
            return tracer.begin_span("tool.call", item.call.name)
        call = item.call
        encoded = _stable_json(call.arguments)
        attributes: dict[str, Any] = {
            "tool_call_id": call.id,
            "tool_name": call.name,
            "tool_call_index": item.index,
            "argument_hash": _digest(encoded),
            "argument_keys": sorted(call.arguments),
            "argument_chars": len(encoded),
            **(together or {}),
        }
        # A tool may name its span apart from the name the model uses (MCP: server.tool).
        named = getattr(self.registry.get(call.name), "trace_name", None)
        name = named if isinstance(named, str) else call.name
        span = tracer.begin_span("tool.call", name, attributes=attributes)
        if tracer.capture_payloads:
            tracer.set_payload(span, "arguments", call.arguments)
        return span

    def _run_one(
        self, item: _Call, env: _BatchEnv, span: TraceSpan, done: tuple[Message, ...]
    ) -> ToolExecutionResult:
        started = time.perf_counter()
        error: BaseException | None = None
        try:
            result = self._execute(item, env, done)
        except Exception as exc:  # a tool bug must not end the run
            error = exc
            logger.exception("%stool %s raised", self._prefix(), item.call.name)
            result = ToolExecutionResult.error(
                f"Error: tool {item.call.name!r} failed: {type(exc).__name__}: {exc}",
                "tool_exception",
            )
        latency_ms = (time.perf_counter() - started) * 1000
        self._finish_span(span, result, latency_ms, error)
        self._log(item.call, result, latency_ms)
        return result

    def _execute(
        self, item: _Call, env: _BatchEnv, done: tuple[Message, ...]
    ) -> ToolExecutionResult:
        call = item.call
        tool = self.registry.get(call.name)
        if tool is None or call.name not in env.visible:
            return _unavailable(call.name, env.visible, known=tool is not None)
        if RAW_ARGUMENTS_KEY in call.arguments:
            raw = str(call.arguments[RAW_ARGUMENTS_KEY])[:200]
            return ToolExecutionResult.error(
                f"Error: the arguments for {call.name!r} are not a valid JSON object: {raw!r}. "
                "Call the tool again with a JSON object matching its parameters.",
                "invalid_arguments",
            )
        problem = check_arguments(tool.parameters, call.arguments)
        if problem is not None:
            return ToolExecutionResult.error(
                f"Error: invalid arguments for {call.name!r}: {problem}", "invalid_arguments"
            )
        tool_input = ToolInput(
            arguments=dict(call.arguments),
            workdir=env.workdir,
            session=env.session,
            visible_tool_names=env.visible,
            metadata={
                "tool_call_id": call.id,
                "step": env.step,
                "run_id": env.metadata.get("run_id"),
            },
        )
        factory = env.draft_factory
        draft = None if factory is None else (lambda: factory(item.index, done))
        ctx = ToolExecutionContext(
            tool_call=call,
            tool=tool,
            tool_input=tool_input,
            step=env.step,
            tool_call_index=item.index,
            checkpoint_draft=draft,
            metadata=env.metadata,
        )
        return self.registry.execute(ctx)

    def _finish_span(
        self,
        span: TraceSpan,
        result: ToolExecutionResult,
        latency_ms: float,
        error: BaseException | None,
    ) -> None:
        tracer = self.tracer
        if not tracer.enabled:
            return
        attributes: dict[str, Any] = {
            "observation_hash": _digest(result.observation),
            "observation_chars": len(result.observation),
            "latency_ms": round(latency_ms, 3),
            "is_error": result.is_error,
            "denied": result.denied_flag,
            "suspended": result.suspended_flag,
            "status": result.status.value,
        }
        if result.error_type:
            attributes["error_type"] = result.error_type
        if result.approval_id:
            attributes["approval_id"] = result.approval_id
            attributes["checkpoint_id"] = result.checkpoint_id
        for key in ("stage", "exit_code", "large_deletion", "child_session", *_SANDBOX_KEYS):
            if key in result.metadata:
                attributes[key] = result.metadata[key]
        if tracer.capture_payloads:
            tracer.set_payload(span, "observation", result.observation)
        tracer.end_span(
            span, status="error" if result.is_error else "ok", attributes=attributes, error=error
        )

    def _prefix(self) -> str:
        return f"[subagent_session={self.log_tag}] " if self.log_tag else ""

    def _log(self, call: ToolCall, result: ToolExecutionResult, latency_ms: float) -> None:
        logger.info(
            "%stool=%s call_id=%s status=%s error_type=%s latency_ms=%.1f",
            self._prefix(),
            call.name,
            call.id,
            result.status.value,
            result.error_type or "-",
            latency_ms,
        )


@dataclass(frozen=True, slots=True)
class _BatchEnv:
    visible: tuple[str, ...]
    workdir: Path
    session: SessionRef | None
    step: int
    draft_factory: CheckpointDraftFactory | None
    metadata: dict[str, Any]


def _groups(tool_calls: Sequence[ToolCall], first_index: int) -> list[list[_Call]]:
    groups: list[list[_Call]] = []
    for offset, call in enumerate(tool_calls):
        item = _Call(first_index + offset, call)
        parallel = call.name in PARALLEL_SAFE_TOOL_NAMES
        if parallel and groups and groups[-1][-1].call.name in PARALLEL_SAFE_TOOL_NAMES:
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _unavailable(name: str, visible: tuple[str, ...], *, known: bool) -> ToolExecutionResult:
    available = ", ".join(visible) or "none"
    if known:
        return ToolExecutionResult.error(
            f"Error: tool {name!r} is not available in this step; available tools: {available}",
            "tool_not_visible",
        )
    return ToolExecutionResult.error(
        f"Error: unknown tool {name!r}; available tools: {available}", "unknown_tool"
    )


# Which sandbox a bash call ran in, and why none: part of the trust boundary.
_SANDBOX_KEYS = ("sandbox", "sandbox_reason")

# json.dumps with these options would build a new encoder on every call.
_stable_json: Callable[[Any], str] = json.JSONEncoder(
    sort_keys=True, ensure_ascii=False, default=str
).encode


def _digest(text: str) -> str:
    """16 hex digits identifying ``text`` in trace attributes (``*_hash``).

    BLAKE2b rather than ``hash_text``'s SHA-256: two digests per tool call sit on
    the agent loop's hot path, and hashlib's OpenSSL SHA-256 costs several times more
    there (its per-call setup, not the hashing, dominates for short texts).
    """
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
