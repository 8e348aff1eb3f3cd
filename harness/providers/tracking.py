"""UsageTrackingProvider: usage totals and ``llm.call`` spans around any provider."""

from __future__ import annotations

import threading
import time
from typing import Any

from harness.core.messages import LLMRequest, LLMResponse, Usage
from harness.providers._protocol import LLMProvider
from harness.tracing import NullTracer, Tracer

__all__ = ["UsageTrackingProvider"]


class UsageTrackingProvider:
    """Decorates a provider: sums usage and writes one ``llm.call`` span per call.

    The adapters stay ignorant of tracing; this is the only place that knows
    both. Span attributes hold counts and names, never message text (payloads
    only in replay mode, through the tracer's redaction).
    """

    def __init__(self, inner: LLMProvider, tracer: Tracer | None = None) -> None:
        self.inner = inner
        self.tracer: Tracer = tracer or NullTracer()
        self.usage = Usage()
        self.calls = 0
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str | None:
        return self.inner.model

    def complete(self, request: LLMRequest) -> LLMResponse:
        tracer = self.tracer
        if not tracer.enabled:
            response = self.inner.complete(request)
            self._add(response.usage)
            return response
        attributes: dict[str, Any] = {
            "provider": self.inner.name,
            "model": request.model or self.inner.model,
            "message_count": len(request.messages),
            "tool_choice": request.tool_choice.value,
            "visible_tools": [tool.name for tool in request.tools],
        }
        span = tracer.begin_span("llm.call", attributes=attributes)
        replay = tracer.capture_payloads
        if replay:  # dumping every message is costly; only replay keeps it
            messages = [m.model_dump(mode="json") for m in request.messages]
            tracer.set_payload(span, "messages", messages)
        started = time.perf_counter()
        try:
            response = self.inner.complete(request)
        except BaseException as exc:
            latency = round((time.perf_counter() - started) * 1000, 3)
            tracer.end_span(
                span,
                status="error",
                attributes={"error_type": type(exc).__name__, "latency_ms": latency},
                error=exc,
            )
            raise
        self._add(response.usage)
        if replay:
            tracer.set_payload(span, "response_text", response.text)
        tracer.end_span(
            span,
            attributes={
                "response_model": response.model,
                "input_tokens": response.usage.input_tokens,
                "output_tokens": response.usage.output_tokens,
                "cached_input_tokens": response.usage.cached_input_tokens,
                "tool_call_count": len(response.tool_calls),
                "text_chars": len(response.text),
                "stop_reason": response.stop_reason,
                "latency_ms": round((time.perf_counter() - started) * 1000, 3),
            },
        )
        return response

    def _add(self, usage: Usage) -> None:
        with self._lock:
            self.usage = self.usage + usage
            self.calls += 1
