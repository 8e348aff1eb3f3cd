"""RequestLoggingProvider: keep every request and response of any provider."""

from __future__ import annotations

import threading

from harness.core.messages import LLMRequest, LLMResponse
from harness.providers._protocol import LLMProvider

__all__ = ["RequestLoggingProvider"]


class RequestLoggingProvider:
    """Decorates a provider and records ``(request, response)`` pairs in order.

    Tests use it to inspect what a real (recorded) provider was sent, the way
    ``ScriptedProvider.requests`` does for the fake.
    """

    def __init__(self, inner: LLMProvider) -> None:
        self.inner = inner
        self.exchanges: list[tuple[LLMRequest, LLMResponse | None]] = []
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str | None:
        return self.inner.model

    @property
    def requests(self) -> list[LLMRequest]:
        with self._lock:
            return [request for request, _ in self.exchanges]

    def complete(self, request: LLMRequest) -> LLMResponse:
        try:
            response = self.inner.complete(request)
        except BaseException:
            with self._lock:
                self.exchanges.append((request, None))
            raise
        with self._lock:
            self.exchanges.append((request, response))
        return response
