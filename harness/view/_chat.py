"""A conversation trace read as a chat: user and agent bubbles, user tools, the judge.

A conversation (``harness.conversations``) is one ``agent.run`` tree whose
children are a span per turn (the contract the viewer reads; a span is matched
by its kind or its name):

- ``user.turn`` and ``agent.turn``: ``conversation.turn`` (int) and
  ``message.content`` (str, as an attribute or in the payload; metadata traces
  keep only ``message.content_chars``). An agent turn may hold the agent's own
  run: its ``llm.call`` and ``tool.call`` spans, at any depth.
- ``user.tool``: a tool the user ran on their side (``gen_ai.tool.name``,
  ``arguments``, ``result``), under the root or inside the user's turn.
- ``judge.call``: the recorded judge (``verdict``, ``reason``).

The root carries ``conversation.turns`` and ``conversation.stop_reason``. Any
other trace is no conversation (``chat`` returns None) and the page shows its
tree. Entries (``"t"``): ``user``, ``agent`` (with ``tools``: the calls the
agent made in that turn), ``user_tool``, ``judge``; each names its span's
position in the page's span list (``span``) so a click opens its details.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

from harness.tracing import TraceSpan, TraceTree

__all__ = ["CONVERSATION_KINDS", "chat", "is_conversation"]

USER_TURN: Final = "user.turn"
AGENT_TURN: Final = "agent.turn"
USER_TOOL: Final = "user.tool"
JUDGE_CALL: Final = "judge.call"
CONVERSATION_KINDS: Final = frozenset({USER_TURN, AGENT_TURN, USER_TOOL, JUDGE_CALL})
_CONTENT: Final = "message.content"


def _is(span: TraceSpan, kind: str) -> bool:
    return span.kind == kind or span.name == kind


def is_conversation(tree: TraceTree) -> bool:
    """An ``agent.run`` root with a user or agent turn among its children."""
    root = tree.root
    return root.kind == "agent.run" and any(
        _is(child, USER_TURN) or _is(child, AGENT_TURN) for child in root.children
    )


def chat(tree: TraceTree, positions: Mapping[str, int]) -> dict[str, Any] | None:
    """The chat of a conversation trace, or None for any other trace.

    Args:
        tree: the trace.
        positions: each span's position in the page's span list, by span id.
    """
    if not is_conversation(tree):
        return None
    root = tree.root
    entries: list[dict[str, Any]] = []
    for child in root.children:
        entries.extend(_entries(child, positions))
    turns = root.attributes.get("conversation.turns")
    stop = root.attributes.get("conversation.stop_reason")
    return {
        "turns": turns if isinstance(turns, int) else None,
        "stop_reason": stop if isinstance(stop, str) else None,
        "entries": entries,
        # Metadata-mode traces keep no text: the page says so once, not per bubble.
        "texts": any(entry.get("text") is not None for entry in entries),
    }


def _entries(span: TraceSpan, positions: Mapping[str, int]) -> Iterator[dict[str, Any]]:
    if _is(span, USER_TOOL):
        yield _user_tool(span, positions)
    elif _is(span, USER_TURN):
        # The user acts on their side first (restarts the router), then says so.
        for child in span.children:
            if _is(child, USER_TOOL):
                yield _user_tool(child, positions)
        if _said(span):
            yield _turn("user", span, positions)
    elif _is(span, AGENT_TURN):
        entry = _turn("agent", span, positions)
        entry["tools"] = [_tool_call(s, positions) for s in _descendants(span, "tool.call")]
        entry["llm_calls"] = sum(1 for _ in _descendants(span, "llm.call"))
        yield entry
    elif _is(span, JUDGE_CALL):
        yield {
            "t": "judge",
            "span": positions.get(span.span_id),
            "st": span.status,
            "verdict": _string(span.attributes.get("verdict")),
            "reason": _string(span.attributes.get("reason")),
            "model": _string(span.attributes.get("model")),
        }


def _said(span: TraceSpan) -> bool:
    """The user spoke on this turn (a turn on which the script ended carries nothing)."""
    keys = (_CONTENT, f"{_CONTENT}_chars", "conversation.turn")
    return any(key in span.attributes for key in keys) or _CONTENT in _payload(span)


def _turn(role: str, span: TraceSpan, positions: Mapping[str, int]) -> dict[str, Any]:
    chars = span.attributes.get(f"{_CONTENT}_chars")
    number = span.attributes.get("conversation.turn")
    return {
        "t": role,
        "span": positions.get(span.span_id),
        "st": span.status,
        "turn": number if isinstance(number, int) else None,
        "text": _value(span, _CONTENT),
        "chars": chars if isinstance(chars, int) else None,
    }


def _user_tool(span: TraceSpan, positions: Mapping[str, int]) -> dict[str, Any]:
    name = span.attributes.get("gen_ai.tool.name")
    return {
        "t": "user_tool",
        "span": positions.get(span.span_id),
        "st": span.status,
        "name": str(name) if name else span.name,
        "args": _value(span, "arguments"),
        "result": _value(span, "result"),
    }


def _tool_call(span: TraceSpan, positions: Mapping[str, int]) -> dict[str, Any]:
    flag = span.attributes.get("is_error")
    return {
        "span": positions.get(span.span_id),
        "name": span.name,
        "args": _value(span, "arguments"),
        "result": _value(span, "observation"),
        "err": span.status == "error" or flag is True,
    }


def _descendants(span: TraceSpan, kind: str) -> Iterator[TraceSpan]:
    """Spans of ``kind`` below ``span``, depth first in the order they ran."""
    for child in span.children:
        if child.kind == kind:
            yield child
        yield from _descendants(child, kind)


def _payload(span: TraceSpan) -> dict[str, Any]:
    found = span.attributes.get("payload")
    return found if isinstance(found, dict) else {}


def _value(span: TraceSpan, key: str) -> str | None:
    """``key`` as an attribute or in the payload (replay mode), as text; None when
    the capture mode kept neither."""
    found = span.attributes.get(key, _payload(span).get(key))
    if found is None:
        return None
    return found if isinstance(found, str) else json.dumps(found, ensure_ascii=False, default=str)


def _string(value: Any) -> str | None:
    return None if value is None else str(value)
