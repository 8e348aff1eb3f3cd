"""Tracing: every run as a JSON tree of spans.

One concept per module:

- ``spans``: ``TraceSpan`` and ``TraceEvent``, the nodes.
- ``tree``: ``TraceTree``, a finished trace with queries and JSON I/O.
- ``tracer``: ``Tracer``, which opens and closes spans; ``null``: ``NullTracer``.
- ``scope``: ``TraceState``, the current span handed to worker threads.
- ``recorders``: the ``TraceRecorder`` seam, file, memory and fan-out recorders.
- ``modes``: capture modes off / metadata / replay.
- ``redaction``: secret scrubbing, truncation, ``hash_text``.
- ``schema``: the versioned file format and ``validate_trace_document``.
- ``outline``: the outline text of a tree, written and parsed; ``render``: a human view.
- ``catalog``: the recorded traces of a state directory, newest first.
- ``otel``: the OpenTelemetry mirror (imported on demand: it needs the ``otel`` extra).
- ``errors``: the tracing errors (under ``harness.core.HarnessError``).

Importing this package has no side effects and does not import jsonschema.
"""

from harness.tracing.catalog import TraceCatalog, TraceSummary, UnreadableTrace, list_traces
from harness.tracing.errors import TraceFormatError, TraceRecordError, TraceUsageError, TracingError
from harness.tracing.modes import DEFAULT_TRACE_MODE, TRACE_MODES, TraceMode, parse_trace_mode
from harness.tracing.null import NullTracer
from harness.tracing.outline import OutlineNode, outline_text, parse_outline, span_label, span_path
from harness.tracing.recorders import (
    FileTraceRecorder,
    MemoryTraceRecorder,
    MultiTraceRecorder,
    TraceRecorder,
    trace_file_path,
)
from harness.tracing.redaction import (
    REDACTED,
    hash_text,
    redact,
    redact_text,
    text_digest,
    truncate,
)
from harness.tracing.render import content_note, render_trace
from harness.tracing.schema import (
    READABLE_SCHEMA_VERSIONS,
    SCHEMA_VERSION,
    load_trace_schema,
    validate_trace_document,
)
from harness.tracing.scope import TraceState
from harness.tracing.spans import NULL_SPAN, SpanStatus, TraceEvent, TraceSpan
from harness.tracing.tracer import DEFAULT_MAX_PAYLOAD_CHARS, Tracer
from harness.tracing.tree import TraceTree

__all__ = [
    "DEFAULT_MAX_PAYLOAD_CHARS",
    "DEFAULT_TRACE_MODE",
    "NULL_SPAN",
    "READABLE_SCHEMA_VERSIONS",
    "REDACTED",
    "SCHEMA_VERSION",
    "TRACE_MODES",
    "FileTraceRecorder",
    "MemoryTraceRecorder",
    "MultiTraceRecorder",
    "NullTracer",
    "OutlineNode",
    "SpanStatus",
    "TraceCatalog",
    "TraceEvent",
    "TraceFormatError",
    "TraceMode",
    "TraceRecordError",
    "TraceRecorder",
    "TraceSpan",
    "TraceState",
    "TraceSummary",
    "TraceTree",
    "TraceUsageError",
    "Tracer",
    "TracingError",
    "UnreadableTrace",
    "content_note",
    "hash_text",
    "list_traces",
    "load_trace_schema",
    "outline_text",
    "parse_outline",
    "parse_trace_mode",
    "redact",
    "redact_text",
    "render_trace",
    "span_label",
    "span_path",
    "text_digest",
    "trace_file_path",
    "truncate",
    "validate_trace_document",
]
