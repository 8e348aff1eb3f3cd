"""Bookkeeping of one open trace (used by ``Tracer``; the Tracer's lock guards it)."""

from __future__ import annotations

import time
from typing import Any

from harness.tracing.schema import SCHEMA_VERSION
from harness.tracing.spans import SpanStatus, TraceSpan, new_span
from harness.tracing.tree import TraceTree

__all__ = ["ActiveTrace"]


class ActiveTrace:
    """The spans of one open trace, their begin order and monotonic start times."""

    __slots__ = (
        "_next_sequence",
        "_started_ns",
        "created_at",
        "metadata",
        "root",
        "session_key",
        "spans",
    )

    def __init__(self, root: TraceSpan, session_key: str | None, metadata: dict[str, Any]) -> None:
        self.root = root
        self.session_key = session_key
        self.metadata = metadata
        self.created_at = root.started_at
        self.spans: dict[str, TraceSpan] = {root.span_id: root}
        self._started_ns: dict[str, int] = {root.span_id: time.perf_counter_ns()}
        self._next_sequence = 1

    def add_child(
        self,
        parent: TraceSpan,
        *,
        span_id: str,
        kind: str,
        name: str,
        started_at: str,
        attributes: dict[str, Any],
    ) -> TraceSpan:
        """Open a span under ``parent``; appended now, so children stay in begin order."""
        span = new_span(
            span_id=span_id,
            parent_id=parent.span_id,
            trace_id=parent.trace_id,
            kind=kind,
            name=name,
            started_at=started_at,
            sequence=self._next_sequence,
            attributes=attributes,
        )
        self._next_sequence += 1
        parent.children.append(span)
        self.spans[span_id] = span
        self._started_ns[span_id] = time.perf_counter_ns()
        return span

    def close(self, span: TraceSpan, status: SpanStatus, now_ns: int, ended_at: str) -> None:
        """Set the end time and duration; an ``error`` status is never downgraded."""
        started_ns = self._started_ns.pop(span.span_id, now_ns)
        span.ended_at = ended_at
        span.duration_ms = round((now_ns - started_ns) / 1_000_000, 3)
        if status == "error":
            span.status = "error"

    def close_all(self, status: SpanStatus, now_ns: int, ended_at: str) -> None:
        """Close spans left open (as ``error`` with ``unclosed: true``), then the root."""
        for span in self.spans.values():
            if span.ended_at is None and span is not self.root:
                span.attributes["unclosed"] = True
                self.close(span, "error", now_ns, ended_at)
        self.close(self.root, status, now_ns, ended_at)

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

    def to_tree(self) -> TraceTree:
        """The finished tree (call after ``close_all``)."""
        return TraceTree(
            schema_version=SCHEMA_VERSION,
            trace_id=self.root.trace_id,
            session_key=self.session_key,
            created_at=self.created_at,
            root=self.root,
            metadata=self.metadata,
        )
