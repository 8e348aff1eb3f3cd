"""One tiny real call per provider; runs only when that provider's API key is set.

The model can be chosen with ``HARNESS_LIVE_OPENAI_MODEL`` / ``HARNESS_LIVE_ANTHROPIC_MODEL``.
"""

from __future__ import annotations

import os

import pytest

from harness.core import LLMRequest, Message
from harness.wires.anthropic.provider import AnthropicProvider
from harness.wires.openai.provider import OpenAIProvider

pytestmark = pytest.mark.live

PING = LLMRequest(
    messages=(Message.user("Reply with exactly one word, in lower case: pong"),), max_tokens=32
)


@pytest.mark.skipif(
    not os.environ.get("OPENAI_API_KEY"),
    reason="OPENAI_API_KEY is not set: export it to run the live OpenAI call",
)
def test_openai_live_round_trip() -> None:
    model = os.environ.get("HARNESS_LIVE_OPENAI_MODEL", "gpt-4o-mini")
    with OpenAIProvider(model, max_retries=1) as provider:
        response = provider.complete(PING)
    assert "pong" in response.text.lower()
    assert response.usage.input_tokens > 0
    assert response.raw_id


@pytest.mark.skipif(
    not os.environ.get("ANTHROPIC_API_KEY"),
    reason="ANTHROPIC_API_KEY is not set: export it to run the live Anthropic call",
)
def test_anthropic_live_round_trip() -> None:
    model = os.environ.get("HARNESS_LIVE_ANTHROPIC_MODEL", "claude-haiku-4-5")
    with AnthropicProvider(model, max_retries=1) as provider:
        response = provider.complete(PING)
    assert "pong" in response.text.lower()
    assert response.usage.input_tokens > 0
    assert response.raw_id
