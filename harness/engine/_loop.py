"""MainLoop: the ReAct loop that asks the model, runs its tools and repeats."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any, Literal

from harness.approval.records import CheckpointDraft
from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse, Message
from harness.core.text import without_surrogates
from harness.engine._context import ContextBuilder, ContextCompactor
from harness.engine._executor import ToolExecutor
from harness.engine._observations import append_tool_observations
from harness.engine._run_policy import phase_for_step, tool_policy_for_phase, visible_tools
from harness.engine._run_types import Phase, RunMode, RunResult, StopReason, ToolPolicy
from harness.engine._state import RunState
from harness.providers import LLMProvider
from harness.session import MemoryEntry, SessionMemoryStore, SessionPlanStore, SessionRef
from harness.tools import ToolRegistry
from harness.tracing import NULL_SPAN, NullTracer, Tracer, TraceSpan

__all__ = ["MainLoop"]

logger = logging.getLogger("harness.engine")

_Status = Literal["ok", "error"]

_ACT_ON_PLAN = "Now carry out the plan step by step with the tools you have."


class MainLoop:
    """Runs prompts through the provider and the tools until a final answer.

    Each step: pick the phase and tool policy, compact the context if needed,
    ask the provider, then either finish on a text answer or run the requested
    tools and append their observations. A tool call that needs a human stops
    the run with ``approval_required``; ``continue_run`` picks it up again with
    the very same step logic.
    """

    def __init__(
        self,
        *,
        provider: LLMProvider,
        registry: ToolRegistry,
        executor: ToolExecutor,
        enabled_tools: Sequence[str],
        workdir: Path,
        memory: SessionMemoryStore,
        plans: SessionPlanStore,
        context_builder: ContextBuilder | None = None,
        compactor: ContextCompactor | None = None,
        tracer: Tracer | None = None,
        max_tokens: int | None = None,
        record_memory: bool = True,
        step_spans: bool = True,
    ) -> None:
        self.provider = provider
        self.registry = registry
        self.executor = executor
        self.enabled_tools = tuple(enabled_tools)
        self.workdir = workdir
        self.memory = memory
        self.plans = plans
        self.context_builder = context_builder or ContextBuilder()
        self.compactor = compactor or ContextCompactor()
        self.tracer: Tracer = tracer or NullTracer()
        self.max_tokens = max_tokens
        self.record_memory = record_memory
        # A subagent's steps nest directly under its subagent.run span.
        self.step_spans = step_spans

    # -- entry points -------------------------------------------------------

    def run(
        self,
        prompt: str,
        *,
        session: SessionRef,
        mode: RunMode = RunMode.ACT,
        max_steps: int = 8,
        channel: Any = None,
        trace_kind: str = "agent.run",
    ) -> RunResult:
        """Run ``prompt`` to a final answer, a pause or a limit."""
        prompt = without_surrogates(prompt)  # undecodable argv bytes must not lose the run
        state = self.new_state(prompt, session=session, mode=mode, max_steps=max_steps)
        state.channel = channel
        if self.record_memory:
            self.memory.append(session.key, MemoryEntry(role="user", content=prompt))
        attributes = {"mode": mode.value, "max_steps": max_steps}
        return self.traced(state, trace_kind, attributes, lambda: self.advance(state))

    def new_state(
        self, prompt: str, *, session: SessionRef, mode: RunMode, max_steps: int
    ) -> RunState:
        plan = self.plans.load(session.key) if mode is RunMode.PLAN_ACT else None
        history = (
            self.memory.load(session.key, limit=self.context_builder.memory_limit)
            if self.record_memory
            else []
        )
        built = self.context_builder.build(
            prompt, workdir=self.workdir, memory=history, mode=mode, plan=plan
        )
        return RunState(
            session=session,
            mode=mode,
            prompt=prompt,
            max_steps=max_steps,
            messages=built.messages,
            prompt_message=built.messages[built.prompt_index],
            pinned=built.pinned,
            plan=plan,
            plan_required=plan is None,
        )

    def traced(
        self,
        state: RunState,
        kind: str,
        attributes: dict[str, Any],
        body: Callable[[], RunResult],
    ) -> RunResult:
        """Run ``body`` under a root span (or a child span inside an open trace)."""
        tracer = self.tracer
        attributes = {**attributes, "session_key": state.session.key}
        nested = tracer.has_active_trace()
        if nested:
            root = tracer.begin_span(kind, attributes=attributes)
        else:
            root = tracer.begin_trace(kind, session_key=state.session.key, attributes=attributes)
        state.trace_id = root.trace_id or None
        tracer.set_text(root, "prompt", state.prompt)
        try:
            result = body()
        except BaseException as exc:
            self._close_root(root, nested, "error", {"stop_reason": "exception"}, exc)
            raise
        end_attributes = {
            "stop_reason": result.stop_reason.value,
            "steps": result.steps,
            "tool_calls": result.tool_calls,
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
        }
        tracer.set_text(root, "answer", result.text)
        status: _Status = "error" if result.stop_reason is StopReason.PROVIDER_ERROR else "ok"
        path = self._close_root(root, nested, status, end_attributes, None)
        if nested or not tracer.enabled:
            return result
        return result.model_copy(update={"trace_id": root.trace_id, "trace_path": path})

    def _close_root(
        self,
        root: TraceSpan,
        nested: bool,
        status: _Status,
        attributes: dict[str, Any],
        error: BaseException | None,
    ) -> Path | None:
        if nested:
            self.tracer.end_span(root, status=status, attributes=attributes, error=error)
            return None
        tree = self.tracer.end_trace(root, status=status, attributes=attributes)
        return tree.path if tree is not None else None

    # -- the loop -----------------------------------------------------------

    def advance(self, state: RunState) -> RunResult:
        """Take steps until the run stops; the shared core of new and resumed runs."""
        while state.step < state.max_steps:
            state.step += 1
            outcome = self._step(state)
            if outcome is not None:
                return outcome
        text = state.last_text or (
            f"Stopped after {state.max_steps} steps without a final answer; "
            "raise max_steps or narrow the task."
        )
        return self._finish(state, StopReason.MAX_STEPS, text)

    def _step(self, state: RunState) -> RunResult | None:
        phase = phase_for_step(mode=state.mode, step=state.step, plan_required=state.plan_required)
        policy = tool_policy_for_phase(phase, mode=state.mode)
        visible = visible_tools(policy, self.enabled_tools)
        attributes = {
            "step": state.step,
            "phase": phase.value,
            "tool_policy": policy.label,
            "visible_tool_count": len(visible),
            "message_count": len(state.messages),
        }
        with self._step_span(attributes) as span:
            self._compact(state, span)
            try:
                response = self.provider.complete(self._request(state, phase, policy, visible))
            except ProviderError as exc:
                self.tracer.set_attributes(span, stop="provider_error")
                return self._finish(state, StopReason.PROVIDER_ERROR, "", error=str(exc))
            state.usage = state.usage + response.usage
            if response.tool_calls:
                return self._act(state, response, phase, policy, visible)
            return self._answer(state, response, phase)

    def _step_span(self, attributes: dict[str, Any]) -> AbstractContextManager[TraceSpan]:
        if self.step_spans:
            return self.tracer.span("agent.step", attributes=attributes)
        return nullcontext(self.tracer.current_span() or NULL_SPAN)

    def _request(
        self, state: RunState, phase: Phase, policy: ToolPolicy, visible: tuple[str, ...]
    ) -> LLMRequest:
        messages = state.messages
        note = self.context_builder.phase_note(phase)
        if note:
            messages = [*messages, Message.system(note)]
        return LLMRequest(
            messages=tuple(messages),
            tools=self.registry.definitions(visible),
            tool_choice=policy.tool_choice,
            model=self.provider.model,
            max_tokens=self.max_tokens,
            metadata={"session_key": state.session.key, "step": state.step},
        )

    def _compact(self, state: RunState, span: TraceSpan) -> None:
        compacted = self.compactor.compact(
            state.messages, pinned=state.pinned, anchor=state.prompt_index()
        )
        if compacted is None:
            return
        state.messages = compacted.messages
        self.tracer.add_event(
            "context.compacted",
            {
                "removed_messages": compacted.removed_messages,
                "chars_before": compacted.chars_before,
                "chars_after": compacted.chars_after,
            },
            span=span,
        )

    def _act(
        self,
        state: RunState,
        response: LLMResponse,
        phase: Phase,
        policy: ToolPolicy,
        visible: tuple[str, ...],
    ) -> RunResult | None:
        calls = response.tool_calls
        state.messages.append(Message.assistant(response.text, calls, response.metadata))
        if response.text:
            state.last_text = response.text
        state.tool_calls += len(calls)

        def draft(index: int, done: tuple[Message, ...]) -> CheckpointDraft:
            return self.checkpoint_draft(state, phase, policy, visible, calls, index, done)

        batch = self.executor.run_tool_batch(
            calls,
            visible_tool_names=visible,
            workdir=self.workdir,
            session=state.session,
            step=state.step,
            draft_factory=draft,
            metadata={"channel": state.channel, "run_id": state.run_id},
        )
        append_tool_observations(state.messages, batch.observations)
        if batch.suspended is None:
            return None
        return self._finish(
            state,
            StopReason.APPROVAL_REQUIRED,
            batch.suspended.observation,
            approval_id=batch.suspended.approval_id,
            checkpoint_id=batch.suspended.checkpoint_id,
        )

    def checkpoint_draft(
        self,
        state: RunState,
        phase: Phase,
        policy: ToolPolicy,
        visible: tuple[str, ...],
        calls: Sequence[Any],
        index: int,
        done: tuple[Message, ...],
        first_index: int = 0,
    ) -> CheckpointDraft:
        """What a checkpoint needs to continue this run after call ``index``."""
        return CheckpointDraft(
            session_key=state.session.key,
            mode=state.mode.value,
            prompt=state.prompt,
            step=state.step,
            max_steps=state.max_steps,
            phase=phase.value,
            tool_policy=policy.label,
            provider=self.provider.name,
            model=self.provider.model,
            visible_tools=visible,
            messages=tuple(state.messages),
            completed_observations=done,
            pending_tool_calls=tuple(calls),
            pending_index=index,
            first_index=first_index,
            plan=state.plan,
            usage=state.usage,
            tool_calls_so_far=state.tool_calls,
            run_id=state.run_id,
            trace_id=state.trace_id,
        )

    def _answer(self, state: RunState, response: LLMResponse, phase: Phase) -> RunResult | None:
        text = response.text
        state.last_text = text
        if state.mode is RunMode.PLAN_ACT and phase is Phase.PLAN:
            # The plan is the first step's answer; acting on it continues the run.
            state.plan, state.plan_required = text, False
            self.plans.save(state.session.key, text)
            state.messages.append(Message.assistant(text, metadata=response.metadata))
            state.messages.append(Message.user(_ACT_ON_PLAN))
            return None
        if state.mode is RunMode.PLAN:
            self.plans.save(state.session.key, text)
        elif state.mode is RunMode.PLAN_ACT:
            self.plans.clear(state.session.key)
        state.messages.append(Message.assistant(text, metadata=response.metadata))
        return self._finish(state, StopReason.FINAL, text)

    def _finish(
        self,
        state: RunState,
        reason: StopReason,
        text: str,
        *,
        error: str | None = None,
        approval_id: str | None = None,
        checkpoint_id: str | None = None,
    ) -> RunResult:
        if self.record_memory and reason in (StopReason.FINAL, StopReason.MAX_STEPS):
            self.memory.append(
                state.session.key,
                MemoryEntry(role="assistant", content=text, metadata={"stop": reason.value}),
            )
        if error:
            logger.warning("run in session %s stopped: %s", state.session.key, error)
        return RunResult(
            text=text,
            stop_reason=reason,
            steps=state.step,
            usage=state.usage,
            mode=state.mode,
            session_key=state.session.key,
            tool_calls=state.tool_calls,
            error=error,
            approval_id=approval_id,
            checkpoint_id=checkpoint_id,
        )
