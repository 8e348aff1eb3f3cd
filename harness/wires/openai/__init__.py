"""OpenAI Chat Completions (``POST /v1/chat/completions``), and its variants (Azure
OpenAI, OpenAI-compatible servers).

- ``provider``: ``OpenAIProvider``, the runtime provider over the ``openai`` SDK;
- ``sdk``: the client and error path both OpenAI wires share;
- ``traffic``: a recorded exchange read for the traffic trace;
- ``simulator``: a scripted reply answered as Chat Completions JSON or SSE;
- ``mutations``: recorded answers decoded for mutants (no body operators yet);
- ``transcript``: the messages of this wire the spans show instead.

The ``openai`` SDK is imported only when a provider is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.wires.openai.provider import OpenAIProvider

__all__ = ["OpenAIProvider"]

__getattr__ = lazy_getattr(__name__, {"OpenAIProvider": "provider"})
