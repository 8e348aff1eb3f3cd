"""The Tracer: opens and closes spans and hands finished trees to a recorder.

Thread model: one lock per Tracer guards the per-trace state (keyed by
``trace_id``, so a server may run several traces at once in different threads).
The current span is a ``ContextVar`` of the Tracer; worker threads receive it
through ``current_state()`` / ``state_of(span)`` and ``attach(state)``. A span
may be begun in one thread and ended in another. Children are appended when
they begin, under the lock, so a parent's children are always in ``sequence``
(begin) order, whatever order they finish in.

Cost: begin and end build spans without pydantic validation, take the lock once
and read one clock each (wall times derive from the monotonic clock, see
``_clock``); span ids count up per trace instead of being drawn at random, and
``span`` blocks are a small class, not a generator. With mode ``off`` every
method returns at once.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from contextvars import ContextVar
from pathlib import Path
from types import TracebackType
from typing import Any

from harness.core import ConfigurationError
from harness.tracing._active import ActiveTrace
from harness.tracing._errors import TraceUsageError
from harness.tracing._modes import DEFAULT_TRACE_MODE, TraceMode, parse_trace_mode
from harness.tracing._recorders import TraceRecorder
from harness.tracing._redaction import redact, redact_text, text_digest, truncate
from harness.tracing._scope import TraceState
from harness.tracing._spans import NULL_SPAN, SpanStatus, TraceSpan
from harness.tracing._tree import TraceTree

__all__ = ["DEFAULT_MAX_PAYLOAD_CHARS", "Tracer"]

DEFAULT_MAX_PAYLOAD_CHARS = 4000

logger = logging.getLogger("harness.tracing")

# Reusable: with mode off the context-manager forms allocate nothing.
_NULL_SPAN_BLOCK: AbstractContextManager[TraceSpan] = nullcontext(NULL_SPAN)


class Tracer:
    """Records runs as trees of spans.

    Args:
        recorder: receives each finished tree (None: trees are only returned).
        mode: ``off``, ``metadata`` (default) or ``replay``; see ``modes``.
        max_payload_chars: strings in replay payloads are truncated to this length.

    Raises:
        ConfigurationError: unknown mode or a non-positive ``max_payload_chars``.
    """

    def __init__(
        self,
        recorder: TraceRecorder | None = None,
        *,
        mode: TraceMode = DEFAULT_TRACE_MODE,
        max_payload_chars: int = DEFAULT_MAX_PAYLOAD_CHARS,
    ) -> None:
        if max_payload_chars < 1:
            raise ConfigurationError(
                f"max_payload_chars must be at least 1, got {max_payload_chars} "
                "(HARNESS_TRACE_MAX_PAYLOAD_CHARS)"
            )
        self._mode: TraceMode = parse_trace_mode(mode)
        self._enabled = self._mode != "off"
        self._replay = self._mode == "replay"
        self._recorder = recorder
        self._max_payload_chars = max_payload_chars
        self._lock = threading.Lock()
        self._traces: dict[str, ActiveTrace] = {}
        self._warned = False
        # One variable per Tracer, so two tracers used in one thread never see each
        # other's spans (a handful of tracers per process; they are not collected).
        self._current: ContextVar[TraceSpan | None] = ContextVar(
            f"harness_tracing_current_span_{id(self):x}", default=None
        )

    # -- configuration ---------------------------------------------------------

    @property
    def mode(self) -> TraceMode:
        """The capture mode."""
        return self._mode

    @property
    def enabled(self) -> bool:
        """False when the mode is ``off``: nothing is recorded."""
        return self._enabled

    @property
    def capture_payloads(self) -> bool:
        """True in ``replay`` mode: ``set_payload`` keeps (redacted) payloads."""
        return self._replay

    @property
    def max_payload_chars(self) -> int:
        """Strings in payloads are truncated to this many characters."""
        return self._max_payload_chars

    @property
    def recorder(self) -> TraceRecorder | None:
        """Where finished trees go."""
        return self._recorder

    # -- traces ----------------------------------------------------------------

    def begin_trace(
        self,
        kind: str,
        name: str | None = None,
        *,
        session_key: str | None = None,
        attributes: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> TraceSpan:
        """Open a trace and its root span, and make the root the current span.

        Raises:
            TraceUsageError: a trace of this Tracer is already active in this
                context; open a span (e.g. ``subagent.run``) inside it instead.
        """
        if not self._enabled:
            return NULL_SPAN
        active = self.current_span()
        if active is not None:
            raise TraceUsageError(
                f"cannot begin trace {kind!r}: trace {active.trace_id} is still active in "
                f"this context (current span {active.label!r}); open a span such as "
                "'subagent.run' inside it, or end it first"
            )
        trace_id = uuid.uuid4().hex
        state = ActiveTrace(
            trace_id,
            kind,
            name or kind,
            dict(attributes) if attributes else {},
            session_key,
            dict(metadata or {}),
        )
        with self._lock:
            self._traces[trace_id] = state
        self._current.set(state.root)
        return state.root

    def end_trace(
        self,
        root: TraceSpan,
        *,
        status: SpanStatus = "ok",
        attributes: dict[str, Any] | None = None,
    ) -> TraceTree | None:
        """Close the trace of ``root`` and hand its tree to the recorder.

        Spans still open are closed with status ``error`` and attribute
        ``unclosed: true``. A recorder failure is logged (one warning per Tracer)
        and never raised.

        Returns:
            The tree, with ``tree.path`` set to the file written (None if the
            recorder wrote none or failed); None when the mode is ``off``.

        Raises:
            TraceUsageError: ``root`` is not the root of an active trace.
        """
        if not self._enabled or root is NULL_SPAN:
            return None
        with self._lock:
            state = self._traces.get(root.trace_id)
            if state is None or state.root is not root:
                raise TraceUsageError(
                    f"span {root.label!r} ({root.span_id}) is not the root of an active trace "
                    "(already ended, or end_span was meant)"
                )
            del self._traces[root.trace_id]
            if attributes:
                root.attributes.update(attributes)
            state.close_all(status, time.perf_counter_ns())  # after every begin
        current = self._current.get()
        if current is not None and current.trace_id == root.trace_id:
            self._current.set(None)
        tree = state.to_tree(self._mode)
        tree.path = self._record(tree)
        return tree

    def trace(
        self,
        kind: str,
        name: str | None = None,
        *,
        session_key: str | None = None,
        attributes: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> AbstractContextManager[TraceSpan]:
        """``begin_trace`` / ``end_trace`` as a context manager yielding the root.

        An exception marks the root ``error`` and is re-raised. The tree goes to
        the recorder; use ``begin_trace`` / ``end_trace`` to get it back directly.
        """
        if not self._enabled:
            return _NULL_SPAN_BLOCK
        return self._trace_block(kind, name, session_key, attributes, metadata)

    @contextmanager
    def _trace_block(
        self,
        kind: str,
        name: str | None,
        session_key: str | None,
        attributes: dict[str, Any] | None,
        metadata: dict[str, Any] | None,
    ) -> Iterator[TraceSpan]:
        root = self.begin_trace(
            kind, name, session_key=session_key, attributes=attributes, metadata=metadata
        )
        try:
            yield root
        except BaseException as exc:
            self.end_trace(root, status="error", attributes=self._error_attributes(exc))
            raise
        self.end_trace(root)

    def has_active_trace(self) -> bool:
        """True when this context's current span belongs to an open trace."""
        return self.current_span() is not None

    # -- spans -----------------------------------------------------------------

    def begin_span(
        self,
        kind: str,
        name: str | None = None,
        *,
        attributes: dict[str, Any] | None = None,
        parent: TraceSpan | None = None,
        activate: bool = True,
    ) -> TraceSpan:
        """Open a child span of ``parent`` (default: the current span).

        Args:
            kind: what the span is, e.g. ``tool.call``.
            name: which one, e.g. the tool name; defaults to ``kind``.
            attributes: initial attributes (copied).
            parent: explicit parent, e.g. the step span when a pool will end the span.
            activate: make the new span the current one (pass False when beginning
                spans that other threads will run, then use ``state_of(span)``).

        Returns:
            The new span; ``NULL_SPAN`` when nothing is recorded (mode off, or no
            active trace and no parent), so code works the same without a trace.
        """
        if not self._enabled:
            return NULL_SPAN
        copied = dict(attributes) if attributes else {}
        with self._lock:
            if parent is None:  # the current span (inlined ``_resolve``: a hot path)
                parent = self._current.get()
                if parent is None:
                    return NULL_SPAN
                state = self._traces.get(parent.trace_id)
                if state is not None and parent.ended_at is not None:  # ended elsewhere
                    parent = state.open_ancestor(parent)
            else:
                state = self._traces.get(parent.trace_id)
            if state is None or parent is None:
                return NULL_SPAN
            span = state.add_child(parent, kind, name or kind, copied)
        if activate:
            self._current.set(span)
        return span

    def end_span(
        self,
        span: TraceSpan,
        *,
        status: SpanStatus = "ok",
        attributes: dict[str, Any] | None = None,
        error: BaseException | None = None,
    ) -> None:
        """Close ``span``; if it is current, its parent becomes current again.

        ``error`` (or an earlier ``set_status(span, "error")``) makes the status
        ``error`` and adds ``error_type`` (and ``error_message`` in replay mode
        only). Ending a span twice, or after its trace ended, does nothing.

        Raises:
            TraceUsageError: ``span`` is a trace root; use ``end_trace``.
        """
        if not self._enabled:
            return
        now_ns = time.perf_counter_ns()
        was_current = self._current.get() is span
        with self._lock:
            state = self._traces.get(span.trace_id)
            if state is None or span.ended_at is not None:
                return
            if span is state.root:
                raise TraceUsageError(
                    f"span {span.label!r} is the root of trace {span.trace_id}: use end_trace"
                )
            if attributes:
                span.attributes.update(attributes)
            if error is not None:
                span.attributes.update(self._error_attributes(error))
                status = "error"
            state.close(span, status, now_ns)
            restore = state.open_ancestor(span) if was_current else None
        if restore is not None:
            self._current.set(restore)

    def span(
        self,
        kind: str,
        name: str | None = None,
        *,
        attributes: dict[str, Any] | None = None,
        parent: TraceSpan | None = None,
    ) -> AbstractContextManager[TraceSpan]:
        """``begin_span`` / ``end_span`` as a context manager.

        An exception ends the span with status ``error`` and is re-raised.
        """
        if not self._enabled:
            return _NULL_SPAN_BLOCK
        return _SpanBlock(self, kind, name, attributes, parent)

    def set_status(
        self, span: TraceSpan, status: SpanStatus, *, error: BaseException | None = None
    ) -> None:
        """Set the status of an open span now (e.g. a tool that returned an error
        observation); ``end_span`` keeps an ``error`` status."""
        if not self._enabled:
            return
        with self._lock:
            if span.trace_id in self._traces and span.ended_at is None:
                span.status = status
                if error is not None:
                    span.attributes.update(self._error_attributes(error))

    def add_event(
        self, name: str, attributes: dict[str, Any] | None = None, *, span: TraceSpan | None = None
    ) -> None:
        """Add a point event to ``span`` (default: the current span); no-op without one."""
        if not self._enabled:
            return
        now_ns = time.perf_counter_ns()
        copied = dict(attributes) if attributes else {}
        with self._lock:
            target = span if span is not None else self._resolve(self._current.get())
            state = self._traces.get(target.trace_id) if target is not None else None
            if target is not None and state is not None:
                target.events.append(state.event(name, now_ns, copied))

    def set_attributes(self, span: TraceSpan, **attributes: Any) -> None:
        """Merge ``attributes`` into ``span`` (while its trace is active)."""
        if not self._enabled:
            return
        with self._lock:
            if span.trace_id in self._traces:
                span.attributes.update(attributes)

    def set_payload(self, span: TraceSpan, key: str, value: Any) -> None:
        """Keep ``value`` under ``attributes["payload"][key]``, redacted and truncated.

        Only in replay mode; a no-op otherwise, so payload text never reaches a
        metadata trace.
        """
        if not self._replay:
            return
        payload = truncate(redact(value), self._max_payload_chars)
        with self._lock:
            if span.trace_id in self._traces:
                span.attributes.setdefault("payload", {})[key] = payload

    def set_text(self, span: TraceSpan, key: str, text: str) -> None:
        """Describe ``text`` (a prompt, an answer) on ``span`` without storing it.

        Sets ``<key>_hash`` (``sha256:`` + hex digest) and ``<key>_chars`` in every
        mode, so metadata traces can still tell whether two runs saw the same
        text; in replay mode also keeps the (redacted, truncated) text as
        ``payload[key]``.
        """
        if not self._enabled:
            return
        self.set_attributes(span, **{f"{key}_hash": text_digest(text), f"{key}_chars": len(text)})
        self.set_payload(span, key, text)

    # -- the current span --------------------------------------------------------

    def current_span(self) -> TraceSpan | None:
        """The innermost open span of an active trace in this context, or None."""
        if not self._enabled:
            return None
        with self._lock:
            return self._resolve(self._current.get())

    def current_span_id(self) -> str | None:
        """``span_id`` of ``current_span()``, or None."""
        span = self.current_span()
        return span.span_id if span is not None else None

    def current_state(self) -> TraceState:
        """A handle of the current span to pass to a worker thread's ``attach``."""
        return TraceState(self.current_span(), id(self))

    def state_of(self, span: TraceSpan) -> TraceState:
        """A handle that makes ``span`` current in a worker thread's ``attach``."""
        return TraceState(span, id(self))

    def attach(self, state: TraceState) -> AbstractContextManager[None]:
        """Make ``state``'s span current in this context until the block ends.

        Raises:
            TraceUsageError: ``state`` was made by another Tracer.
        """
        if not self._enabled:
            return nullcontext()
        if state.owner != id(self):
            raise TraceUsageError("this TraceState was made by another Tracer")
        return self._attached(state)

    @contextmanager
    def _attached(self, state: TraceState) -> Iterator[None]:
        token = self._current.set(state.span)
        try:
            yield
        finally:
            self._current.reset(token)

    # -- internals ---------------------------------------------------------------

    def _resolve(self, span: TraceSpan | None) -> TraceSpan | None:
        # The nearest open span at or above ``span`` in an active trace. Caller holds the lock.
        if span is None:
            return None
        state = self._traces.get(span.trace_id)
        return state.open_ancestor(span) if state is not None else None

    def _error_attributes(self, error: BaseException) -> dict[str, Any]:
        attributes: dict[str, Any] = {"error_type": type(error).__name__}
        if self._replay:
            attributes["error_message"] = truncate(redact_text(str(error)), self._max_payload_chars)
        return attributes

    def _record(self, tree: TraceTree) -> Path | None:
        if self._recorder is None:
            return None
        try:
            return self._recorder.record(tree)
        except Exception as exc:  # a recorder must never break the run
            with self._lock:
                first, self._warned = not self._warned, True
            if first:
                logger.warning(
                    "could not record trace %s: %s (the run continues; further recording "
                    "failures of this tracer are not logged)",
                    tree.trace_id,
                    exc,
                )
            return None


class _SpanBlock:
    """``Tracer.span``: begins the span on entry and ends it on exit, as ``error``
    when an exception passes.

    A class rather than a ``@contextmanager`` generator, which costs several times
    more: the agent loop opens one per step.
    """

    __slots__ = ("_attributes", "_kind", "_name", "_parent", "_span", "_tracer")

    def __init__(
        self,
        tracer: Tracer,
        kind: str,
        name: str | None,
        attributes: dict[str, Any] | None,
        parent: TraceSpan | None,
    ) -> None:
        self._tracer = tracer
        self._kind = kind
        self._name = name
        self._attributes = attributes
        self._parent = parent
        self._span = NULL_SPAN

    def __enter__(self) -> TraceSpan:
        self._span = self._tracer.begin_span(
            self._kind, self._name, attributes=self._attributes, parent=self._parent
        )
        return self._span

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._tracer.end_span(self._span, error=exc)
