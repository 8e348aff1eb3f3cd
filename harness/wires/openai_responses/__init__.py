"""The OpenAI Responses API (``POST /v1/responses``), on the ``openai`` SDK's client.

- ``provider``: ``OpenAIResponsesProvider``, the runtime provider;
- ``items``: harness messages as input items and output items back;
- ``events``: a streamed answer assembled from its events, and rendered as events;
- ``traffic``: a recorded exchange read for the traffic trace;
- ``simulator``: a scripted reply answered as a Response (JSON or events), with
  the conversations the server holds (``store``, ``previous_response_id``);
- ``mutations``: mutants of a recorded answer body;
- ``transcript``: the input items the spans show instead.

The ``openai`` SDK is imported only when a provider is built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.wires.openai_responses.provider import OpenAIResponsesProvider

__all__ = ["OpenAIResponsesProvider"]

__getattr__ = lazy_getattr(__name__, {"OpenAIResponsesProvider": "provider"})
