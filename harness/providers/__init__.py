"""Model providers: the protocol, fakes for tests, and real SDK adapters.

Each SDK adapter lives in its wire's package (``harness.wires.<name>.provider``),
a room above this one; the public names below reach it by the registry's dotted
path (``harness.core.wires``) on first use, so ``import harness`` stays light
and no arrow of the import graph points up. Type checkers see them in their
wire's package (``from harness.wires.openai.provider import OpenAIProvider``).
"""

from __future__ import annotations

from typing import Any

from harness.core.wire_parts import load_dotted
from harness.core.wires import wire
from harness.providers._echo import EchoProvider
from harness.providers._function import FunctionProvider
from harness.providers._protocol import LLMProvider
from harness.providers._request_log import RequestLoggingProvider
from harness.providers._scripted import ScriptedProvider, Turn, tool_call, turn_to_response

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


# Each public adapter by the wire whose provider part it is.
_ADAPTERS = {
    "AnthropicProvider": "anthropic",
    "OpenAIProvider": "openai",
    "OpenAIResponsesProvider": "openai-responses",
}


def __getattr__(name: str) -> Any:
    found = _ADAPTERS.get(name)
    dotted = wire(found).parts.provider if found is not None else None
    if dotted is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return load_dotted(dotted)
