"""Running a conversation: user turn, agent turn, until a stop condition; one trace.

The trace is one ``agent.run`` tree, a span per turn (the viewer reads these names):

    agent.run                      conversation.turns, conversation.stop_reason
      user.turn                    conversation.turn, message.content
        user.tool <name>           gen_ai.tool.name, arguments, result
      agent.turn                   conversation.turn, message.content
        agent.run ...              harness's runtime: its own steps, llm.call, tool.call
      judge.call                   (added by the case runner when the case has a judge)

``message.content`` (and a user tool's arguments and result) are kept in
``replay`` capture mode only, redacted and truncated as every payload is; every
mode keeps ``message.content_hash`` and ``message.content_chars``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.conversations._spec import UserSpec, UserToolCall
from harness.conversations._state import run_user_tool
from harness.conversations._targets import ConversationTarget
from harness.conversations._transcript import ChatMessage, ConversationResult, StopReason
from harness.conversations._user import UserSpeaker
from harness.core.errors import ConfigurationError
from harness.core.messages import ToolCall, Usage
from harness.tracing import Tracer, TraceSpan, redact, truncate

__all__ = ["run_conversation", "set_message"]


def set_message(tracer: Tracer, span: TraceSpan, turn: int, text: str) -> None:
    """A turn span's attributes: its number, and its text as the capture mode allows."""
    tracer.set_attributes(span, **{"conversation.turn": turn})
    tracer.set_text(span, "message.content", text)
    if tracer.capture_payloads:
        shown = truncate(redact(text), tracer.max_payload_chars)
        tracer.set_attributes(span, **{"message.content": shown})


class _UserTools:
    """Runs the user's tools on the state file, each under a ``user.tool`` span."""

    def __init__(self, spec: UserSpec, workdir: Path, tracer: Tracer) -> None:
        self._tools = {tool.name: tool for tool in spec.tools}
        self._state = workdir / spec.state if spec.state is not None else None
        self._tracer = tracer
        self.calls: list[ToolCall] = []

    def __call__(self, call: UserToolCall) -> str:
        tracer = self._tracer
        with tracer.span("user.tool", call.name) as span:
            tracer.set_attributes(span, **{"gen_ai.tool.name": call.name})
            tool = self._tools.get(call.name)
            if tool is None or self._state is None:
                known = ", ".join(sorted(self._tools)) or "none"
                result = f"error: no tool {call.name!r} on your side (you have: {known})"
                tracer.set_status(span, "error")
            else:
                try:
                    result = run_user_tool(tool, self._state)
                except ConfigurationError as exc:  # a bad path: the user sees it, as a model would
                    result = f"error: {exc}"
                    tracer.set_status(span, "error")
            if tracer.capture_payloads:
                arguments = truncate(redact(json.dumps(call.arguments)), tracer.max_payload_chars)
                tracer.set_attributes(
                    span,
                    arguments=arguments,
                    result=truncate(redact(result), tracer.max_payload_chars),
                )
        self.calls.append(ToolCall(name=call.name, arguments=dict(call.arguments)))
        return result


def run_conversation(
    spec: UserSpec,
    user: UserSpeaker,
    agent: ConversationTarget,
    *,
    tracer: Tracer,
    workdir: Path,
    goal_reached: Callable[[], bool] | None = None,
    session_key: str | None = None,
    after: Callable[[Tracer, ConversationResult], None] | None = None,
) -> ConversationResult:
    """Talk until the user stops, the goal holds (``stop.on_goal``) or ``max_turns``.

    The whole conversation is one trace on ``tracer`` (harness's runtime must use
    the same tracer, so its runs nest in the agent turns). ``after`` runs inside
    the trace once the talking is done (the case runner's judge goes there).
    """
    tools = _UserTools(spec, workdir, tracer)
    root = tracer.begin_trace(
        "agent.run",
        session_key=session_key,
        attributes={"conversation.user": "scripted" if spec.scripted else "model"},
    )
    messages: list[ChatMessage] = []
    usage = Usage()
    stop: StopReason = "max_turns"
    turns = 0
    try:
        for turn in range(1, spec.stop.max_turns + 1):
            with tracer.span("user.turn") as span:
                said = user.next_turn(tuple(messages), tools)
                if said is not None:
                    turns = turn
                    usage = usage + said.usage
                    set_message(tracer, span, turn, said.text)
            if said is None:
                stop = user.ended or "script_end"
                break
            text = said.text.replace(spec.stop.token, "").strip()
            if text:
                messages.append(ChatMessage("user", text))
            if spec.stop.token in said.text:
                stop = "user_stop"
                break
            if not text:
                stop = "user_silent"
                break
            with tracer.span("agent.turn") as span:
                reply = agent.respond([m.as_dict() for m in messages])
                set_message(tracer, span, turn, reply)
            messages.append(ChatMessage("assistant", reply))
            if spec.stop.on_goal and goal_reached is not None and goal_reached():
                stop = "goal_reached"
                break
        result = ConversationResult(
            tuple(messages), stop, turns, tuple(tools.calls), usage, trace_id=root.trace_id or None
        )
        if after is not None:
            after(tracer, result)
    except BaseException:
        tracer.end_trace(root, status="error", attributes=_ending(turns, "error"))
        raise
    tree = tracer.end_trace(root, attributes=_ending(turns, stop))
    path = tree.path if tree is not None else None
    return ConversationResult(
        result.messages,
        stop,
        turns,
        result.user_tool_calls,
        usage,
        trace_path=path,
        trace_id=result.trace_id,
    )


def _ending(turns: int, stop: str) -> dict[str, Any]:
    return {"conversation.turns": turns, "conversation.stop_reason": stop}
