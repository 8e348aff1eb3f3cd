"""The provider seam."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from harness.core.messages import LLMRequest, LLMResponse

__all__ = ["LLMProvider"]


@runtime_checkable
class LLMProvider(Protocol):
    """Turns an ``LLMRequest`` into an ``LLMResponse``.

    Contract: ``complete`` is synchronous and may be called from worker threads
    (the Explorer subagent runs inside a tool call). Failures are raised as
    ``ProviderError`` with a message that names the cause; adapters know nothing
    of tracing (``UsageTrackingProvider`` wraps them for that).
    """

    @property
    def name(self) -> str: ...

    @property
    def model(self) -> str | None: ...

    def complete(self, request: LLMRequest) -> LLMResponse: ...
