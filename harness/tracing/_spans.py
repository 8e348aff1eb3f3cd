"""Spans and events: the nodes of a trace tree.

A ``TraceSpan`` is mutable while it is open (the Tracer fills in ``ended_at``,
``status``, attributes, events and children) and becomes a plain serialisable
value once its trace has ended. Spans are created on the hot path of the agent
loop, so the Tracer builds them with :func:`new_span` / :func:`new_event`, which
skip validation; everything read back from disk goes through normal pydantic
validation instead.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["NULL_SPAN", "SpanStatus", "TraceEvent", "TraceSpan", "new_event", "new_span"]

SpanStatus = Literal["ok", "error"]

_MODEL_CONFIG = ConfigDict(extra="forbid")


class TraceEvent(BaseModel):
    """A point in time inside a span, e.g. ``context.compacted``."""

    model_config = _MODEL_CONFIG

    name: str
    at: str
    attributes: dict[str, Any] = Field(default_factory=dict)


class TraceSpan(BaseModel):
    """One timed unit of work: a run, a step, a model call, a tool call.

    Attributes:
        span_id: id unique within the trace.
        parent_id: ``span_id`` of the parent, None for the root.
        trace_id: id of the trace the span belongs to.
        kind: what the span is, e.g. ``agent.step`` or ``tool.call``.
        name: which one, e.g. the tool name; equals ``kind`` when nothing more specific.
        started_at: ISO-8601 UTC begin time.
        ended_at: ISO-8601 UTC end time, None while open.
        duration_ms: wall time in milliseconds, None while open.
        sequence: begin order within the trace (root is 0); children are ordered by it.
        status: ``ok`` or ``error``.
        attributes: JSON-compatible metadata (names, counts, hashes; payloads in replay).
        events: point events in the order they happened.
        children: child spans in begin order.
    """

    model_config = _MODEL_CONFIG

    span_id: str
    parent_id: str | None
    trace_id: str
    kind: str
    name: str
    started_at: str
    ended_at: str | None = None
    duration_ms: float | None = None
    sequence: int = 0
    status: SpanStatus = "ok"
    attributes: dict[str, Any] = Field(default_factory=dict)
    events: list[TraceEvent] = Field(default_factory=list)
    children: list[TraceSpan] = Field(default_factory=list)

    @property
    def is_open(self) -> bool:
        """True until the span has been ended."""
        return self.ended_at is None

    @property
    def ok(self) -> bool:
        """False when the span ended in error: a tool that raised or refused, a failed call.

        ``assert trace.one(kind="tool.call", name="read")`` only says the call
        happened; ``assert trace.one(...).ok`` says it worked.
        """
        return self.status != "error"

    def __repr__(self) -> str:
        # Short, with the status first: an assertion on a span shows whether it failed.
        why = self.attributes.get("error_type")
        detail = f", error_type={why!r}" if self.status == "error" and why else ""
        return f"TraceSpan({self.label!r}, status={self.status!r}{detail}, id={self.span_id!r})"

    @property
    def label(self) -> str:
        """``kind`` when the name adds nothing, else ``kind name`` (the outline line)."""
        return self.kind if self.name == self.kind else f"{self.kind} {self.name}"


# Every field is set, so all spans (and all events) can share one "fields set":
# pydantic only ever adds names to it, and these already hold every name. Sharing
# saves a set per span, and the garbage collector visiting it while the run goes on.
_SPAN_FIELDS: Final[set[str]] = set(TraceSpan.model_fields)
_EVENT_FIELDS: Final[set[str]] = set(TraceEvent.model_fields)

# What ``model_construct`` does, minus its per-field default handling: on pydantic
# 2.x that handling makes ``model_construct`` slower than a validated ``__init__``.
# The builders below pass every field, so nothing is skipped.
# tests/tracing/test_trace_spans.py checks the result equals a validated model.
_new_object = object.__new__
_set_slot = object.__setattr__


def new_span(
    span_id: str,
    parent_id: str | None,
    trace_id: str,
    kind: str,
    name: str,
    started_at: str,
    sequence: int,
    attributes: dict[str, Any],
) -> TraceSpan:
    """Build an open span without validation (the Tracer's hot path)."""
    span: TraceSpan = _new_object(TraceSpan)
    _set_slot(
        span,
        "__dict__",
        {
            "span_id": span_id,
            "parent_id": parent_id,
            "trace_id": trace_id,
            "kind": kind,
            "name": name,
            "started_at": started_at,
            "ended_at": None,
            "duration_ms": None,
            "sequence": sequence,
            "status": "ok",
            "attributes": attributes,
            "events": [],
            "children": [],
        },
    )
    _set_slot(span, "__pydantic_fields_set__", _SPAN_FIELDS)
    _set_slot(span, "__pydantic_extra__", None)
    _set_slot(span, "__pydantic_private__", None)
    return span


def new_event(name: str, at: str, attributes: dict[str, Any]) -> TraceEvent:
    """Build an event without validation (the Tracer's hot path)."""
    event: TraceEvent = _new_object(TraceEvent)
    _set_slot(event, "__dict__", {"name": name, "at": at, "attributes": attributes})
    _set_slot(event, "__pydantic_fields_set__", _EVENT_FIELDS)
    _set_slot(event, "__pydantic_extra__", None)
    _set_slot(event, "__pydantic_private__", None)
    return event


NULL_SPAN: Final[TraceSpan] = new_span(
    span_id="null",
    parent_id=None,
    trace_id="",
    kind="null",
    name="null",
    started_at="1970-01-01T00:00:00.000000Z",
    sequence=0,
    attributes={},
)
"""The shared span returned when nothing is recorded (mode off, NullTracer, no
active trace). Tracer methods ignore it; do not modify it."""
