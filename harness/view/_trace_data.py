"""A trace as the trace page's script reads it: a flat list of spans with times
relative to the start of the trace.

The page gets plain numbers (milliseconds since the root began, to the
microsecond) so its script does no date arithmetic but to print a span's times,
and a flat list with child indices so it can render any subtree lazily, on
expand, without walking the whole tree.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Final

from harness.tracing import TraceSpan, TraceTree
from harness.tracing.outline import walk_with_depth
from harness.view._chat import chat
from harness.view._trace_cases import TraceCase, trace_providers
from harness.view._transcript import transcript

__all__ = ["MARKED_KINDS", "PARALLEL_KINDS", "trace_data"]

# Spans the page marks, and keeps in view: the rows above them start expanded.
MARKED_KINDS: Final = frozenset({"approval.pause", "approval.resume", "subagent.run"})

# Sibling spans of these kinds that overlap in time are marked as running in parallel.
PARALLEL_KINDS: Final = frozenset({"tool.call"})


def trace_data(
    tree: TraceTree,
    *,
    source: str,
    with_transcript: bool = True,
    case: TraceCase | None = None,
) -> dict[str, Any]:
    """Return the JSON-able description of ``tree`` for the page.

    Args:
        tree: the trace.
        source: where it was read from, shown on the page.
        with_transcript: add the trace's transcript (``tx``, see ``transcript``).
        case: the eval case whose run wrote it, when a report says so.
    """
    origin = _parse(tree.root.started_at)
    spans: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for depth, span in walk_with_depth(tree.root):
        index[span.span_id] = len(spans)
        spans.append(_span(span, depth, origin, index.get(span.parent_id or "", -1)))
    for position, span in enumerate(tree.walk()):
        spans[position]["c"] = [index[child.span_id] for child in span.children]
    _mark_parallel(spans)
    _mark_paths(spans)
    total = max((s["s"] + (s["e"] or 0.0) for s in spans), default=0.0)
    has_payloads = any(s["pl"] is not None for s in spans)
    # What the trace list names a trace by: its case and its model calls' provider
    # (four traces of one session, one per provider, were told apart by id alone).
    providers = trace_providers(tree) or ([f"{case.provider}/{case.model}"] if case else [])
    return {
        "id": tree.trace_id,
        "case": case.case if case else None,
        "providers": providers,
        "session": tree.session_key,
        "created_at": tree.created_at,
        # Spans carry offsets from this (the page prints their times from it): a
        # thousand traces of timestamps would be half of a packed report.
        "started_at": tree.root.started_at,
        "capture_mode": tree.capture_mode,
        "has_payloads": has_payloads,
        "source": source,
        "root": tree.root.label,
        # A conversation's root says why the talking stopped under its own name.
        "stop_reason": tree.root.attributes.get("stop_reason")
        or tree.root.attributes.get("conversation.stop_reason"),
        "total_ms": total,
        "errors": sum(1 for s in spans if s["st"] == "error"),
        "spans": spans,
        "tx": transcript(tree) if with_transcript else None,
        # A conversation's turns as a chat (None: not a conversation; the tree then).
        "chat": chat(tree, index),
    }


def _span(span: TraceSpan, depth: int, origin: datetime, parent: int) -> dict[str, Any]:
    attributes = dict(span.attributes)
    payload = attributes.pop("payload", None)
    return {
        "id": span.span_id,
        "p": parent,
        "d": depth,
        "k": span.kind,
        "n": span.name,
        "s": _offset_ms(span.started_at, origin),
        "e": span.duration_ms,
        "st": span.status,
        "seq": span.sequence,
        "a": attributes,
        "pl": payload if isinstance(payload, dict) else None,
        "ev": [
            {"n": event.name, "t": _offset_ms(event.at, origin), "a": event.attributes}
            for event in span.events
        ],
        "c": [],
        "par": False,
        "hm": False,
    }


def _mark_parallel(spans: list[dict[str, Any]]) -> None:
    """Flag sibling spans whose [start, end) intervals overlap."""
    for parent in spans:
        children = [spans[i] for i in parent["c"] if spans[i]["k"] in PARALLEL_KINDS]
        for position, first in enumerate(children):
            for second in children[position + 1 :]:
                if _overlap(first, second):
                    first["par"] = second["par"] = True


def _mark_paths(spans: list[dict[str, Any]]) -> None:
    """Set ``hm`` on every ancestor of a marked span (spans come parents first)."""
    for span in reversed(spans):
        if span["p"] >= 0 and (span["k"] in MARKED_KINDS or span["hm"]):
            spans[span["p"]]["hm"] = True


def _overlap(first: dict[str, Any], second: dict[str, Any]) -> bool:
    first_end = first["s"] + (first["e"] or 0.0)
    second_end = second["s"] + (second["e"] or 0.0)
    return bool(first["s"] < second_end and second["s"] < first_end)


def _parse(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp)


def _offset_ms(timestamp: str, origin: datetime) -> float:
    # Whole microseconds, as the trace stores them.
    return round((_parse(timestamp) - origin).total_seconds() * 1000, 3)
