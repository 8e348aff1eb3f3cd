"""``NullTracer``: the Tracer that records nothing, at almost no cost.

It is a ``Tracer`` (mode ``off``), so it fits wherever one is expected; every
method returns at once and ``begin_*`` return the shared ``NULL_SPAN``.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import Any, Final

from harness.tracing._scope import TraceState
from harness.tracing._spans import NULL_SPAN, SpanStatus, TraceSpan
from harness.tracing._tracer import Tracer
from harness.tracing._tree import TraceTree

__all__ = ["NullTracer"]

_NULL_STATE: Final = TraceState(None, 0)
# nullcontext objects are reusable, so the context-manager forms allocate nothing.
_NULL_SPAN_BLOCK: Final = nullcontext(NULL_SPAN)
_NULL_BLOCK: Final = nullcontext()


class NullTracer(Tracer):
    """A Tracer that records nothing; use it when tracing is off."""

    def __init__(self) -> None:
        super().__init__(None, mode="off")

    def begin_trace(
        self,
        kind: str,
        name: str | None = None,
        *,
        session_key: str | None = None,
        attributes: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> TraceSpan:
        return NULL_SPAN

    def end_trace(
        self,
        root: TraceSpan,
        *,
        status: SpanStatus = "ok",
        attributes: dict[str, Any] | None = None,
    ) -> TraceTree | None:
        return None

    def trace(
        self,
        kind: str,
        name: str | None = None,
        *,
        session_key: str | None = None,
        attributes: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> AbstractContextManager[TraceSpan]:
        return _NULL_SPAN_BLOCK

    def has_active_trace(self) -> bool:
        return False

    def begin_span(
        self,
        kind: str,
        name: str | None = None,
        *,
        attributes: dict[str, Any] | None = None,
        parent: TraceSpan | None = None,
        activate: bool = True,
    ) -> TraceSpan:
        return NULL_SPAN

    def end_span(
        self,
        span: TraceSpan,
        *,
        status: SpanStatus = "ok",
        attributes: dict[str, Any] | None = None,
        error: BaseException | None = None,
    ) -> None:
        return None

    def span(
        self,
        kind: str,
        name: str | None = None,
        *,
        attributes: dict[str, Any] | None = None,
        parent: TraceSpan | None = None,
    ) -> AbstractContextManager[TraceSpan]:
        return _NULL_SPAN_BLOCK

    def set_status(
        self, span: TraceSpan, status: SpanStatus, *, error: BaseException | None = None
    ) -> None:
        return None

    def add_event(
        self, name: str, attributes: dict[str, Any] | None = None, *, span: TraceSpan | None = None
    ) -> None:
        return None

    def set_attributes(self, span: TraceSpan, **attributes: Any) -> None:
        return None

    def set_payload(self, span: TraceSpan, key: str, value: Any) -> None:
        return None

    def set_text(self, span: TraceSpan, key: str, text: str) -> None:
        return None

    def current_span(self) -> TraceSpan | None:
        return None

    def current_span_id(self) -> str | None:
        return None

    def current_state(self) -> TraceState:
        return _NULL_STATE

    def state_of(self, span: TraceSpan) -> TraceState:
        return _NULL_STATE

    def attach(self, state: TraceState) -> AbstractContextManager[None]:
        return _NULL_BLOCK
