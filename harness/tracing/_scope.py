"""Handing the current span to worker threads.

The current span lives in a ``ContextVar`` of each Tracer. A new thread starts
with an empty context, so code that runs work on a pool takes a
``TraceState`` in the submitting thread (``tracer.current_state()`` or
``tracer.state_of(span)``) and enters ``tracer.attach(state)`` in the worker;
spans begun there get the right parent.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.tracing._spans import TraceSpan

__all__ = ["TraceState"]


@dataclass(frozen=True, slots=True)
class TraceState:
    """Opaque handle of "the current span" that can cross threads.

    Only ``Tracer.attach`` of the tracer that made it should use it.
    """

    span: TraceSpan | None
    owner: int
