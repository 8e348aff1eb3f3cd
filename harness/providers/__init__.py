"""Model providers: the protocol, fakes for tests, and real SDK adapters.

The OpenAI and Anthropic adapters import their SDKs lazily, so ``import harness``
stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from harness.providers.echo import EchoProvider
from harness.providers.function import FunctionProvider
from harness.providers.protocol import LLMProvider
from harness.providers.request_log import RequestLoggingProvider
from harness.providers.scripted import ScriptedProvider, Turn, tool_call, turn_to_response

if TYPE_CHECKING:
    from harness.providers.anthropic_messages import AnthropicProvider
    from harness.providers.openai_chat import OpenAIProvider
    from harness.providers.openai_responses import OpenAIResponsesProvider

__all__ = [
    "AnthropicProvider",
    "EchoProvider",
    "FunctionProvider",
    "LLMProvider",
    "OpenAIProvider",
    "OpenAIResponsesProvider",
    "RequestLoggingProvider",
    "ScriptedProvider",
    "Turn",
    "tool_call",
    "turn_to_response",
]


def __getattr__(name: str) -> Any:
    if name == "OpenAIProvider":
        from harness.providers.openai_chat import OpenAIProvider

        return OpenAIProvider
    if name == "OpenAIResponsesProvider":
        from harness.providers.openai_responses import OpenAIResponsesProvider

        return OpenAIResponsesProvider
    if name == "AnthropicProvider":
        from harness.providers.anthropic_messages import AnthropicProvider

        return AnthropicProvider
    raise AttributeError(f"module 'harness.providers' has no attribute {name!r}")
