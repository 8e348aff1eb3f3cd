"""Model providers: the protocol, fakes for tests, and real SDK adapters.

The OpenAI and Anthropic adapters import their SDKs lazily, so ``import harness``
stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr
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


_LAZY = {
    "AnthropicProvider": "anthropic_messages",
    "OpenAIProvider": "openai_chat",
    "OpenAIResponsesProvider": "openai_responses",
}
__getattr__ = lazy_getattr(__name__, _LAZY)
