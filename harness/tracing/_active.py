"""Bookkeeping of one open trace (used by ``Tracer``; the Tracer's lock guards it)."""

from __future__ import annotations

import time
from typing import Any

from harness.tracing._clock import TraceClock
from harness.tracing._modes import TraceMode
from harness.tracing._schema import SCHEMA_VERSION
from harness.tracing._spans import SpanStatus, TraceEvent, TraceSpan, new_event, new_span
from harness.tracing._tree import TraceTree

__all__ = ["ActiveTrace"]


class ActiveTrace:
    """The spans of one open trace, their begin order and monotonic start times.

    Span ids are the first 8 hex digits of the (random) trace id followed by the
    span's ``sequence`` in 8 hex digits: unique within the trace, the same shape
    as random ids, and free to make. Spans are changed through their ``__dict__``:
    pydantic's ``__setattr__`` only adds bookkeeping that ``new_span`` already did.
    """

    __slots__ = (
        "_id_prefix",
        "_next_sequence",
        "_started_ns",
        "clock",
        "created_at",
        "metadata",
        "root",
        "session_key",
        "spans",
    )

    def __init__(
        self,
        trace_id: str,
        kind: str,
        name: str,
        attributes: dict[str, Any],
        session_key: str | None,
        metadata: dict[str, Any],
    ) -> None:
        self.clock = TraceClock()
        self.created_at = self.clock.iso(self.clock.origin_ns)
        self._id_prefix = trace_id[:8]
        root_id = f"{self._id_prefix}{0:08x}"
        self.root = new_span(root_id, None, trace_id, kind, name, self.created_at, 0, attributes)
        self.session_key = session_key
        self.metadata = metadata
        self.spans: dict[str, TraceSpan] = {root_id: self.root}
        self._started_ns: dict[str, int] = {root_id: self.clock.origin_ns}  # open spans only
        self._next_sequence = 1

    def add_child(
        self, parent: TraceSpan, kind: str, name: str, attributes: dict[str, Any]
    ) -> TraceSpan:
        """Open a span under ``parent``; appended now, so children stay in begin order."""
        now_ns = time.perf_counter_ns()
        sequence = self._next_sequence
        self._next_sequence = sequence + 1
        span_id = f"{self._id_prefix}{sequence:08x}"
        started_at = self.clock.iso(now_ns)
        span = new_span(
            span_id, parent.span_id, parent.trace_id, kind, name, started_at, sequence, attributes
        )
        parent.children.append(span)
        self.spans[span_id] = span
        self._started_ns[span_id] = now_ns
        return span

    def event(self, name: str, now_ns: int, attributes: dict[str, Any]) -> TraceEvent:
        """An event stamped ``now_ns`` (a ``time.perf_counter_ns`` reading)."""
        return new_event(name, self.clock.iso(now_ns), attributes)

    def close(self, span: TraceSpan, status: SpanStatus, now_ns: int) -> None:
        """Set the end time and duration; an ``error`` status is never downgraded."""
        fields = span.__dict__
        elapsed_ns = now_ns - self._started_ns.pop(fields["span_id"], now_ns)
        fields["ended_at"] = self.clock.iso(now_ns)
        # Whole microseconds (half up) in milliseconds; round(x, 3) costs more.
        fields["duration_ms"] = (elapsed_ns + 500) // 1000 / 1000
        if status == "error":
            fields["status"] = "error"

    def close_all(self, status: SpanStatus, now_ns: int) -> None:
        """Close spans left open (as ``error`` with ``unclosed: true``), then the root."""
        root_id = self.root.span_id
        for span_id in [key for key in self._started_ns if key != root_id]:
            span = self.spans[span_id]
            span.attributes["unclosed"] = True
            self.close(span, "error", now_ns)
        self.close(self.root, status, now_ns)

    def open_ancestor(self, span: TraceSpan) -> TraceSpan | None:
        """The nearest open span at or above ``span`` (a current span goes stale when
        another thread ends it), or None."""
        current: TraceSpan | None = span
        hops = len(self.spans)  # bounds the walk even if an id were ever reused
        while current is not None and current.ended_at is not None and hops > 0:
            parent_id = current.parent_id
            current = self.spans.get(parent_id) if parent_id is not None else None
            hops -= 1
        return current if current is not None and current.ended_at is None else None

    def to_tree(self, capture_mode: TraceMode) -> TraceTree:
        """The finished tree (call after ``close_all``)."""
        return TraceTree(
            schema_version=SCHEMA_VERSION,
            capture_mode=capture_mode,
            trace_id=self.root.trace_id,
            session_key=self.session_key,
            created_at=self.created_at,
            root=self.root,
            metadata=self.metadata,
        )
