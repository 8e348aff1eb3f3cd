"""Traces built for the viewer tests and the bench: overlapping calls, big trees."""

from __future__ import annotations

from harness.tracing import MemoryTraceRecorder, Tracer, TraceTree


def overlapping_tree() -> TraceTree:
    """A step whose two reads overlap in time (both begin before either ends),
    followed by a step with one read."""
    tracer = Tracer(MemoryTraceRecorder(), mode="replay")
    root = tracer.begin_trace("agent.run", session_key="par")
    with tracer.span("agent.step", attributes={"step": 1}) as step:
        first = tracer.begin_span("tool.call", "read", parent=step, activate=False)
        second = tracer.begin_span("tool.call", "read", parent=step, activate=False)
        tracer.end_span(first)
        tracer.end_span(second)
    with tracer.span("agent.step", attributes={"step": 2}), tracer.span("tool.call", "read"):
        pass
    tree = tracer.end_trace(root, attributes={"stop_reason": "final", "steps": 2})
    assert tree is not None
    return tree


def big_tree(spans: int = 1000) -> TraceTree:
    """A run of at least ``spans`` spans: steps with a model call, a read and an
    explore whose subagent takes a few steps of its own."""
    tracer = Tracer(MemoryTraceRecorder())
    root = tracer.begin_trace("agent.run", session_key="big")
    count, step = 1, 0
    while count < spans:
        step += 1
        with tracer.span("agent.step", attributes={"step": step}):
            with tracer.span("llm.call", attributes={"input_tokens": 100 + step}):
                pass
            with tracer.span("tool.call", "read", attributes={"tool_name": "read"}):
                pass
            with tracer.span("tool.call", "explore"), tracer.span("subagent.run"):
                for inner in range(2):
                    step_attributes = {"step": inner + 1}
                    with (
                        tracer.span("agent.step", attributes=step_attributes),
                        tracer.span("llm.call"),
                    ):
                        pass
        count += 9
    tree = tracer.end_trace(root, attributes={"stop_reason": "final", "steps": step})
    assert tree is not None
    return tree


# A secret-free sentinel a hostile message carries, to show the chat inserts text, never HTML.
HOSTILE_TEXT = "<img src=x onerror=window.pwned=1>"


def conversation_tree(mode: str = "replay") -> TraceTree:
    """A two-turn conversation as ``harness.conversations`` traces one: the user
    restarts their router (a user tool) and asks; the agent reads a file and answers;
    the user thanks it and stops; a judge passes it. Built with harness's own tracer."""
    tracer = Tracer(MemoryTraceRecorder(), mode=mode)  # type: ignore[arg-type]
    root = tracer.begin_trace(
        "agent.run", session_key="conv", attributes={"conversation.user": "scripted"}
    )

    def say(span_kind: str, turn: int, text: str) -> None:
        with tracer.span(span_kind) as span:
            if span_kind == "user.turn" and turn == 1:
                with tracer.span("user.tool", "restart_router") as tool:
                    tracer.set_attributes(tool, **{"gen_ai.tool.name": "restart_router"})
                    if tracer.capture_payloads:
                        tracer.set_attributes(tool, arguments='{"force": true}', result="rebooted")
            if span_kind == "agent.turn" and turn == 1:
                with tracer.span("agent.run"), tracer.span("agent.step"):
                    with tracer.span("llm.call"):
                        pass
                    with tracer.span("tool.call", "read") as read:
                        tracer.set_payload(read, "arguments", {"path": "router.log"})
                        tracer.set_payload(read, "observation", "link up at 10:02")
            tracer.set_attributes(span, **{"conversation.turn": turn})
            tracer.set_text(span, "message.content", text)

    say("user.turn", 1, "My internet is down. " + HOSTILE_TEXT)
    say("agent.turn", 1, "The log says the link came up at 10:02; try again now.")
    say("user.turn", 2, "It works, thanks! ###STOP###")
    with tracer.span("judge.call") as judge:
        tracer.set_attributes(judge, verdict="pass", reason="the agent read the log first")
    tree = tracer.end_trace(
        root, attributes={"conversation.turns": 2, "conversation.stop_reason": "user_stop"}
    )
    assert tree is not None
    return tree
