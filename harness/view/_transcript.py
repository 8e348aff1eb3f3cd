"""A run read as a transcript: what the model was sent, what it answered, what
the tools returned, in order, from a replay-mode trace.

The trace may be harness's own (payloads ``messages``, ``response_text``,
``arguments``, ``observation``) or the traffic trace of a cassette
(``harness.testing.trace_from_exchanges`` in replay mode, any wire format it
decodes), so there is one reader for every source. Entries (``"t"``):

- ``msg``: a system / user message sent to the model (``role``, ``text``);
- ``answer``: a model answer, its text and the tool calls it asked for
  (``calls``: ``[{"name", "args"}]``); ``final`` is the run's last answer;
- ``tool``: a tool result (``name``, ``text``, ``err``: True, False, or None
  where the source has no flag);
- ``mark``: an approval pause or resume, a subagent run's start and end;
- ``error``: a model call that failed.

``d`` is the nesting depth (a subagent's entries are one deeper). Texts are as
the trace stores them: redacted, and cut only where the trace marks the cut.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from harness.core.wire_parts import load_part
from harness.core.wires import ready_wires
from harness.tracing import TraceSpan, TraceTree

__all__ = ["transcript"]

# Roles and items a transcript draws from spans instead (answers, tool results).
_FROM_SPANS: Final = frozenset({"assistant", "tool", "model", "function"})
_RUN_KINDS: Final = frozenset({"agent.run", "subagent.run", "approval.resume"})


@dataclass
class _Run:
    """What one conversation showed so far: how many messages its last call sent."""

    seen: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)


def transcript(tree: TraceTree) -> dict[str, Any]:
    """The transcript of ``tree``: ``{"entries": [...]}``, or ``{"entries": [],
    "why": ...}`` when the trace holds no text to read it from."""
    if tree.capture_mode != "replay":
        mode = tree.capture_mode or "an unrecorded"
        return {"entries": [], "why": f"the trace was recorded in {mode} mode (no message text)"}
    entries: list[dict[str, Any]] = []
    _visit_run(tree.root, 0, entries)
    _mark_final(entries, tree.root)
    if not entries:
        return {"entries": [], "why": "the trace holds no model call with its messages"}
    return {"entries": entries}


def _payload(span: TraceSpan) -> dict[str, Any]:
    found = span.attributes.get("payload")
    return found if isinstance(found, dict) else {}


def _visit_run(span: TraceSpan, depth: int, out: list[dict[str, Any]]) -> None:
    run = _Run()
    for child in span.children:
        _visit(child, span, depth, run)
    out.extend(run.entries)


def _visit(span: TraceSpan, parent: TraceSpan, depth: int, run: _Run) -> None:
    kind = span.kind
    if kind == "agent.step":
        for child in span.children:
            _visit(child, span, depth, run)
    elif kind == "llm.call":
        _llm(span, parent, depth, run)
    elif kind == "tool.call":
        _tool(span, depth, run)
    elif kind == "approval.pause":
        detail = _facts(span, ("approval_id", "risk", "reason", "rule"))
        run.entries.append(_mark(depth, "waiting for approval", detail, "approval"))
    elif kind == "approval.resume":
        detail = _facts(span, ("decision", "approval_id"))
        run.entries.append(_mark(depth, "resumed after approval", detail, "resume"))
        for child in span.children:
            _visit(child, span, depth, run)
    elif kind == "subagent.run":
        run.entries.append(_mark(depth, "subagent run", _facts(span, ("agent", "task")), "sub"))
        _visit_run(span, depth + 1, run.entries)
        run.entries.append(_mark(depth, "subagent done", "", "sub"))
    elif kind in _RUN_KINDS:
        _visit_run(span, depth, run.entries)


def _llm(span: TraceSpan, parent: TraceSpan, depth: int, run: _Run) -> None:
    payload = _payload(span)
    system = payload.get("system")
    if run.seen == 0 and isinstance(system, str) and system:
        run.entries.append({"t": "msg", "d": depth, "role": "system", "text": system})
    messages = payload.get("messages")
    if isinstance(messages, list):
        _sent(messages, depth, run)
    if span.status == "error":
        error = span.attributes.get("error_message") or span.attributes.get("error_type")
        run.entries.append({"t": "error", "d": depth, "text": str(error or "the call failed")})
        return
    text = payload.get("response_text")
    run.entries.append(
        {
            "t": "answer",
            "d": depth,
            "text": text if isinstance(text, str) else "",
            "calls": _asked(span, parent),
            "model": span.attributes.get("response_model") or span.attributes.get("model"),
        }
    )


def _sent(messages: list[Any], depth: int, run: _Run) -> None:
    """The messages of a call the transcript has not shown yet."""
    if run.seen == 0:
        # A run that opens on a history (a resumed run): its answers and results were
        # shown in the run before; show what follows the last of them.
        earlier = [i for i, m in enumerate(messages) if _message(m) is None]
        if earlier:
            start = earlier[-1] + 1
            note = f"{start} earlier messages of the conversation"
            run.entries.append(_mark(depth, "history", note, "history"))
            fresh = messages[start:]
        else:
            fresh = messages
    else:
        # A conversation resends its history: show only what is new since its last call
        # (all of it when the call sent less, e.g. a Responses call chained by id).
        fresh = messages[run.seen :] if len(messages) >= run.seen else messages
    run.seen = len(messages)
    for message in fresh:
        shown = _message(message)
        if shown is not None:
            role, text = shown
            run.entries.append({"t": "msg", "d": depth, "role": role, "text": text})


def _asked(span: TraceSpan, parent: TraceSpan) -> list[dict[str, Any]]:
    """The tool calls an answer asked for: the traffic trace lists them on the
    ``llm.call``; harness's own trace has them as the ``tool.call`` spans after it."""
    listed = span.attributes.get("tool_calls")
    if isinstance(listed, list) and listed:
        return [
            {"name": str(c.get("name")), "args": _text(c.get("arguments"))}
            for c in listed
            if isinstance(c, dict)
        ]
    after = parent.children[parent.children.index(span) + 1 :] if span in parent.children else []
    calls = []
    for sibling in after:
        if sibling.kind == "llm.call":
            break
        if sibling.kind == "tool.call":
            calls.append({"name": sibling.name, "args": _text(_payload(sibling).get("arguments"))})
    return calls


def _tool(span: TraceSpan, depth: int, run: _Run) -> None:
    payload = _payload(span)
    flag = span.attributes.get("is_error")
    error = True if span.status == "error" else (flag if isinstance(flag, bool) else None)
    observation = payload.get("observation")
    answered = span.attributes.get("answered", True) is not False
    for child in span.children:
        _visit(child, span, depth, run)
    if not answered and observation is None:
        return
    run.entries.append(
        {
            "t": "tool",
            "d": depth,
            "name": span.name,
            "text": _text(observation) if observation is not None else None,
            "err": error,
        }
    )


def _mark(depth: int, label: str, detail: str, kind: str) -> dict[str, Any]:
    return {"t": "mark", "d": depth, "kind": kind, "text": label, "detail": detail}


def _facts(span: TraceSpan, keys: tuple[str, ...]) -> str:
    found = [f"{key}: {span.attributes[key]}" for key in keys if span.attributes.get(key)]
    return " · ".join(found)


def _mark_final(entries: list[dict[str, Any]], root: TraceSpan) -> None:
    for entry in reversed(entries):
        if entry["d"] == 0 and entry["t"] == "answer":
            if not entry["calls"]:
                entry["t"] = "final"
            return
    answer = _payload(root).get("answer")
    if isinstance(answer, str) and answer:
        entries.append({"t": "final", "d": 0, "text": answer, "calls": [], "model": None})


def _message(message: Any) -> tuple[str, str] | None:
    """``(role, text)`` of a message sent to the model, or None for the history the
    transcript shows from spans (answers, tool calls and results)."""
    if not isinstance(message, dict):
        return ("user", _text(message))
    for reader in _wire_readers():
        if reader.reads(message):
            found: tuple[str, str] | None = reader.content_line(message)
            return found
    role = str(message.get("role") or "user")
    if role in _FROM_SPANS:
        return None
    content = message.get("content")
    if isinstance(content, list):
        parts = [part for part in content if not _is_result(part)]
        if not parts:
            return None  # an Anthropic user turn that only carries tool results
        return (role, "".join(_parts(parts)))
    return (role, _text(content))


@functools.cache
def _wire_readers() -> tuple[Any, ...]:
    """Each wire's transcript part: it claims the messages of its own shape (``parts``
    contents, kind-keyed blocks, Responses items, tool results); the rest is the
    ``role``/``content`` shape harness's own messages share, read here."""
    return tuple(load_part(entry, "transcript") for entry in ready_wires())


def _is_result(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") in ("tool_result", "function_call_output")


def _parts(parts: list[Any]) -> Iterator[str]:
    for part in parts:
        if isinstance(part, str):
            yield part
        elif isinstance(part, dict):
            text = part.get("text", part.get("content"))
            yield text if isinstance(text, str) else _text(part)
        else:
            yield _text(part)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=None, default=str)
