"""FunctionProvider: any callable as a provider."""

from __future__ import annotations

from collections.abc import Callable

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse

__all__ = ["FunctionProvider"]


class FunctionProvider:
    """Wraps ``fn(LLMRequest) -> LLMResponse``; the most flexible fake."""

    def __init__(
        self,
        fn: Callable[[LLMRequest], LLMResponse],
        *,
        name: str = "function",
        model: str | None = "function",
    ) -> None:
        self._fn = fn
        self.name = name
        self.model = model

    def complete(self, request: LLMRequest) -> LLMResponse:
        response = self._fn(request)
        if not isinstance(response, LLMResponse):
            raise ProviderError(
                f"FunctionProvider's function returned {type(response).__name__}; "
                "it must return an LLMResponse",
                provider=self.name,
            )
        return response
