"""Anthropic Messages (``POST /v1/messages``).

- ``provider``: ``AnthropicProvider``, the runtime provider over the ``anthropic`` SDK;
- ``traffic``: a recorded exchange read for the traffic trace;
- ``simulator``: a scripted reply answered as Messages JSON or SSE, with the
  threads the server holds for the SDK's tool runner;
- ``mutations``: recorded answers decoded for mutants (no body operators yet);
- ``transcript``: the user turns the spans show instead (tool results).

The ``anthropic`` SDK is imported only when a provider is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.wires.anthropic.provider import AnthropicProvider

__all__ = ["AnthropicProvider"]

__getattr__ = lazy_getattr(__name__, {"AnthropicProvider": "provider"})
