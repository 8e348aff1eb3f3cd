"""Mirror finished traces to OpenTelemetry (the ``otel`` extra, ``HARNESS_OTEL``).

``OTelTraceRecorder`` is a ``TraceRecorder``: it receives each finished tree
after the JSON file was written and replays it as OpenTelemetry spans with the
harness span's own start and end times, parents and children, and the GenAI
semantic conventions:

=================================  ======================  =====================
harness span                       ``gen_ai.operation``    OTel span name
=================================  ======================  =====================
``agent.run``                      ``invoke_agent``        ``invoke_agent harness``
``subagent.run``                   ``invoke_agent``        ``invoke_agent explorer``
``llm.call``                       ``chat``                ``chat <model>``
``tool.call``                      ``execute_tool``        ``execute_tool <tool>``
anything else                      (none)                  the harness kind
=================================  ======================  =====================

plus ``gen_ai.provider.name``, ``gen_ai.request.model``, ``gen_ai.response.model``,
``gen_ai.usage.input_tokens`` / ``output_tokens``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id`` and ``gen_ai.conversation.id`` (the session key). The
other harness attributes follow as ``harness.<key>``, but for those a tool set
under a convention's own name (an MCP tool's ``mcp.method.name``,
``mcp.session.id``, ``gen_ai.tool.name``), which go out as they are. Content (prompts,
messages, arguments, observations) goes out only when the trace was captured
in ``replay`` mode, already redacted and truncated by the Tracer.

The JSON trace stays the source of truth: this recorder never raises. Exporter
failures are caught and logged by the SDK's span processor; anything else is
logged here as a warning. Mirroring after the fact, rather than as spans open,
keeps the agent loop free of OpenTelemetry's per-span cost (``bench/span_cost.py``).

OpenTelemetry is imported only when a recorder is built, so ``import harness``
never needs it.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

from harness.core import ConfigurationError
from harness.tracing._spans import TraceSpan
from harness.tracing._tree import TraceTree
from harness.version import __version__

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.trace import Tracer as OTelTracer

__all__ = ["OTEL_EXPORTERS", "OTelExporterName", "OTelTraceRecorder", "build_otel_recorder"]

OTelExporterName = Literal["console", "otlp"]
OTEL_EXPORTERS: Final[tuple[str, ...]] = ("off", "console", "otlp")

logger = logging.getLogger("harness.tracing.otel")

_AGENT_KINDS: Final = {"agent.run": "harness"}
_SUBAGENT_KINDS: Final = {"subagent.run": "explorer"}
# Span attributes a tool already named by the OpenTelemetry semantic conventions
# (an MCP tool's ``mcp.method.name``, ``mcp.session.id``...): exported as they are.
_SEMCONV_PREFIXES: Final = ("gen_ai.", "mcp.", "network.", "error.", "jsonrpc.", "server.")
# Payload keys with a GenAI attribute of their own; others become harness.payload.<key>.
_CONTENT_ATTRIBUTES: Final = {
    ("llm.call", "messages"): "gen_ai.input.messages",
    ("llm.call", "response_text"): "gen_ai.output.messages",
    ("tool.call", "arguments"): "gen_ai.tool.call.arguments",
    ("tool.call", "observation"): "gen_ai.tool.call.result",
}


class OTelTraceRecorder:
    """Replays each finished harness trace as OpenTelemetry spans.

    Args:
        tracer_provider: an ``opentelemetry.sdk.trace.TracerProvider`` with the
            span processors and exporters to use (tests pass one with an
            in-memory exporter).
    """

    def __init__(self, tracer_provider: TracerProvider) -> None:
        self.tracer_provider = tracer_provider
        self._tracer: OTelTracer = tracer_provider.get_tracer("harness", __version__)

    def record(self, tree: TraceTree) -> None:
        """Mirror ``tree``; never raises (a failure is logged as a warning)."""
        try:
            from opentelemetry.context import Context

            self._emit(tree, tree.root, Context(), tree.capture_mode == "replay")
        except Exception as exc:  # the JSON trace is the source of truth
            logger.warning(
                "could not mirror trace %s to OpenTelemetry: %s: %s (the run continues)",
                tree.trace_id,
                type(exc).__name__,
                exc,
            )

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        """Export spans still buffered by batch processors."""
        return bool(self.tracer_provider.force_flush(timeout_millis))

    def shutdown(self) -> None:
        """Flush and stop the provider's processors."""
        self.tracer_provider.shutdown()

    def _emit(self, tree: TraceTree, span: TraceSpan, parent: Context, content: bool) -> None:
        from opentelemetry.trace import SpanKind, Status, StatusCode, set_span_in_context

        start_ns = _epoch_ns(span.started_at)
        otel_span = self._tracer.start_span(
            _span_name(span),
            context=parent,
            kind=SpanKind.CLIENT if span.kind == "llm.call" else SpanKind.INTERNAL,
            attributes=_attributes(tree, span, content),
            start_time=start_ns,
        )
        for event in span.events:
            otel_span.add_event(
                event.name, _flat("", event.attributes), timestamp=_epoch_ns(event.at)
            )
        if span.status == "error":
            otel_span.set_status(
                Status(StatusCode.ERROR, str(span.attributes.get("error_type", "")))
            )
        context = set_span_in_context(otel_span, parent)
        for child in span.children:
            self._emit(tree, child, context, content)
        # The monotonic duration, not ended_at - started_at: wall clocks can step.
        duration_ns = int((span.duration_ms or 0.0) * 1_000_000)
        otel_span.end(end_time=start_ns + duration_ns)


def build_otel_recorder(exporter: OTelExporterName) -> OTelTraceRecorder:
    """A recorder exporting to the console (stderr) or over OTLP/HTTP.

    ``otlp`` reads the standard variables (``OTEL_EXPORTER_OTLP_ENDPOINT``,
    ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_EXPORTER_OTLP_TIMEOUT``, ...) through
    the SDK and sends in batches; buffered spans are flushed when the process
    exits. ``OTEL_SERVICE_NAME`` names the service (default ``harness``).

    Raises:
        ConfigurationError: the ``otel`` extra is not installed, or an unknown exporter.
    """
    try:
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import (
            BatchSpanProcessor,
            ConsoleSpanExporter,
            SimpleSpanProcessor,
        )
    except ImportError:
        raise ConfigurationError(
            f"HARNESS_OTEL={exporter} needs the OpenTelemetry SDK: "
            "pip install 'harness-toolkit[otel]' (or set HARNESS_OTEL=off)"
        ) from None
    attributes = {} if os.environ.get("OTEL_SERVICE_NAME") else {"service.name": "harness"}
    provider = TracerProvider(resource=Resource.create(attributes))
    if exporter == "console":
        # stderr: stdout carries the command's own output (answers, --json).
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter(out=sys.stderr)))
    elif exporter == "otlp":
        try:
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError:
            raise ConfigurationError(
                "HARNESS_OTEL=otlp needs the OTLP/HTTP exporter: "
                "pip install 'harness-toolkit[otel]'"
            ) from None
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    else:
        raise ConfigurationError(
            f"HARNESS_OTEL={exporter!r} is not valid: use one of {', '.join(OTEL_EXPORTERS)}"
        )
    return OTelTraceRecorder(provider)


# -- mapping --------------------------------------------------------------------


def _span_name(span: TraceSpan) -> str:
    attributes = span.attributes
    if span.kind in _AGENT_KINDS:
        return f"invoke_agent {_AGENT_KINDS[span.kind]}"
    if span.kind in _SUBAGENT_KINDS:
        return f"invoke_agent {_SUBAGENT_KINDS[span.kind]}"
    if span.kind == "llm.call":
        model = attributes.get("model") or attributes.get("response_model")
        return f"chat {model}" if model else "chat"
    if span.kind == "tool.call":
        return f"execute_tool {attributes.get('tool_name') or span.name}"
    return span.label


def _attributes(tree: TraceTree, span: TraceSpan, content: bool) -> dict[str, Any]:
    source = span.attributes
    result: dict[str, Any] = {
        "harness.span.kind": span.kind,
        "harness.span.name": span.name,
        "harness.span_id": span.span_id,
        "harness.trace_id": tree.trace_id,
    }
    if tree.session_key is not None:
        result["gen_ai.conversation.id"] = tree.session_key
    for key, value in source.items():
        if key.startswith(_SEMCONV_PREFIXES):
            result.update(_flat(key, value))  # already named by the conventions (MCP tools)
        elif key != "payload":
            result.update(_flat(f"harness.{key}", value))
    result.update(_gen_ai(span))
    if "error_type" in source:
        result["error.type"] = str(source["error_type"])
    payload = source.get("payload")
    if content and isinstance(payload, dict):
        for key, value in payload.items():
            name = _CONTENT_ATTRIBUTES.get((span.kind, key), f"harness.payload.{key}")
            result[name] = value if isinstance(value, str) else json.dumps(value, default=str)
    return result


def _gen_ai(span: TraceSpan) -> dict[str, Any]:
    source = span.attributes
    values: dict[str, Any] = {}
    if span.kind in _AGENT_KINDS or span.kind in _SUBAGENT_KINDS:
        values["gen_ai.operation.name"] = "invoke_agent"
        values["gen_ai.agent.name"] = {**_AGENT_KINDS, **_SUBAGENT_KINDS}[span.kind]
    elif span.kind == "llm.call":
        values["gen_ai.operation.name"] = "chat"
        values["gen_ai.provider.name"] = source.get("provider")
        values["gen_ai.request.model"] = source.get("model")
        values["gen_ai.response.model"] = source.get("response_model")
        if source.get("stop_reason"):
            values["gen_ai.response.finish_reasons"] = [str(source["stop_reason"])]
    elif span.kind == "tool.call":
        values["gen_ai.operation.name"] = "execute_tool"
        values["gen_ai.tool.name"] = (
            source.get("gen_ai.tool.name") or source.get("tool_name") or span.name
        )
        values["gen_ai.tool.call.id"] = source.get("tool_call_id")
    if span.kind in _AGENT_KINDS or span.kind in _SUBAGENT_KINDS or span.kind == "llm.call":
        values["gen_ai.usage.input_tokens"] = source.get("input_tokens")
        values["gen_ai.usage.output_tokens"] = source.get("output_tokens")
    return {key: value for key, value in values.items() if value is not None}


def _flat(prefix: str, value: Any) -> dict[str, Any]:
    """OTel attribute values are scalars or lists of one scalar type: flatten the rest."""
    if value is None:
        return {}
    if isinstance(value, dict):
        flat: dict[str, Any] = {}
        for key, item in value.items():
            flat.update(_flat(f"{prefix}.{key}" if prefix else str(key), item))
        return flat
    if isinstance(value, str | bool | int | float):
        return {prefix: value}
    if isinstance(value, list | tuple) and all(isinstance(item, str) for item in value):
        return {prefix: list(value)}
    return {prefix: json.dumps(value, default=str)}


_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)


def _epoch_ns(timestamp: str) -> int:
    # Integer arithmetic: a float POSIX time loses the microseconds.
    return (datetime.fromisoformat(timestamp) - _EPOCH) // _MICROSECOND * 1000
