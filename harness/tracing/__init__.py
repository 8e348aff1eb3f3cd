"""Tracing: every run as a JSON tree of spans.

One concept per module:

- ``_spans``: ``TraceSpan`` and ``TraceEvent``, the nodes.
- ``_tree``: ``TraceTree``, a finished trace with queries and JSON I/O.
- ``_tracer``: ``Tracer``, which opens and closes spans; ``_null``: ``NullTracer``.
- ``_scope``: ``TraceState``, the current span handed to worker threads.
- ``_recorders``: the ``TraceRecorder`` seam, file, memory and fan-out recorders.
- ``_modes``: capture modes off / metadata / replay.
- ``_redaction``: secret scrubbing, truncation, ``hash_text``.
- ``_schema``: the versioned file format and ``validate_trace_document``.
- ``outline``: the outline text of a tree, written and parsed; ``_render``: a human view.
- ``_catalog``: the recorded traces of a state directory, newest first.
- ``otel``: the OpenTelemetry mirror (imported on demand: it needs the ``otel`` extra).
- ``_errors``: the tracing errors (under ``harness.core.HarnessError``).

Importing this package has no side effects and does not import jsonschema.
"""

from harness.tracing._catalog import TraceCatalog, TraceSummary, UnreadableTrace, list_traces
from harness.tracing._errors import (
    TraceFormatError,
    TraceRecordError,
    TraceUsageError,
    TracingError,
)
from harness.tracing._modes import DEFAULT_TRACE_MODE, TRACE_MODES, TraceMode, parse_trace_mode
from harness.tracing._null import NullTracer
from harness.tracing._recorders import (
    FileTraceRecorder,
    MemoryTraceRecorder,
    MultiTraceRecorder,
    TraceRecorder,
    trace_file_path,
)
from harness.tracing._redaction import (
    REDACTED,
    hash_text,
    redact,
    redact_text,
    text_digest,
    truncate,
)
from harness.tracing._render import content_note, render_trace
from harness.tracing._schema import (
    READABLE_SCHEMA_VERSIONS,
    SCHEMA_VERSION,
    load_trace_schema,
    validate_trace_document,
)
from harness.tracing._scope import TraceState
from harness.tracing._spans import NULL_SPAN, SpanStatus, TraceEvent, TraceSpan
from harness.tracing._tracer import DEFAULT_MAX_PAYLOAD_CHARS, Tracer
from harness.tracing._tree import TraceTree
from harness.tracing.outline import OutlineNode, outline_text, parse_outline, span_label, span_path

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
