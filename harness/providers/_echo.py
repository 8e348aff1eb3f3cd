"""EchoProvider: the offline smoke provider."""

from __future__ import annotations

from harness.core.messages import LLMRequest, LLMResponse, Role, Usage

__all__ = ["EchoProvider"]


class EchoProvider:
    """Replies with the last user message; never calls tools."""

    name = "echo"

    def __init__(self, model: str | None = "echo") -> None:
        self.model = model

    def complete(self, request: LLMRequest) -> LLMResponse:
        prompt = next((m.content for m in reversed(request.messages) if m.role is Role.USER), "")
        return LLMResponse(
            text=prompt,
            model=self.model,
            stop_reason="end_turn",
            usage=Usage(input_tokens=_words(request), output_tokens=len(prompt.split())),
        )


def _words(request: LLMRequest) -> int:
    return sum(len(m.content.split()) for m in request.messages)
