"""Helpers for the recording tests: real SDK clients and a two-turn agent conversation."""

from __future__ import annotations

import functools
import ssl
from typing import Any

import anthropic
import httpx2
import openai

OPENAI_KEY = "sk-test-SECRET123"
ANTHROPIC_KEY = "sk-ant-test-SECRET456"

AGENT_SCRIPT: dict[str, Any] = {
    "version": 1,
    "turn_order": "conversation",
    "turns": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]},
        "The notes say: SENTINEL-A1.\nThat is all.",
    ],
}


@functools.cache
def _tls() -> ssl.SSLContext:
    # Loading the CA bundle costs ~100 ms per client; share one context instead.
    return ssl.create_default_context()


def openai_client(base: str, **options: Any) -> openai.OpenAI:
    """An OpenAI SDK client for ``base`` (no retries unless asked, so misses fail fast)."""
    options.setdefault("max_retries", 0)
    http = httpx2.Client(verify=_tls())
    return openai.OpenAI(api_key=OPENAI_KEY, base_url=f"{base}/v1", http_client=http, **options)


def anthropic_client(base: str, **options: Any) -> anthropic.Anthropic:
    """An Anthropic SDK client for ``base``."""
    options.setdefault("max_retries", 0)
    http = httpx2.Client(verify=_tls())
    return anthropic.Anthropic(api_key=ANTHROPIC_KEY, base_url=base, http_client=http, **options)


def openai_conversation(client: openai.OpenAI, prompt: str = "Read notes.txt") -> list[Any]:
    """Run the two-turn agent through the OpenAI SDK; return both responses as dicts."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    first = client.chat.completions.create(
        model="gpt-4o-mini", messages=messages, metadata={"run": "1"}
    )
    call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
    messages += [
        {"role": "assistant", "content": None, "tool_calls": [call.model_dump()]},
        {"role": "tool", "tool_call_id": call.id, "content": "SENTINEL-A1"},
    ]
    second = client.chat.completions.create(model="gpt-4o-mini", messages=messages)
    return [first.model_dump(), second.model_dump()]


def anthropic_conversation(
    client: anthropic.Anthropic, prompt: str = "Read notes.txt"
) -> list[Any]:
    """Run the two-turn agent through the Anthropic SDK; return both responses as dicts."""
    messages: list[Any] = [{"role": "user", "content": prompt}]
    first = client.messages.create(model="claude-harness-test", max_tokens=256, messages=messages)
    use = next(block for block in first.content if block.type == "tool_use")
    messages += [
        {"role": "assistant", "content": [block.model_dump() for block in first.content]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": use.id, "content": "SENTINEL-A1"}],
        },
    ]
    second = client.messages.create(model="claude-harness-test", max_tokens=256, messages=messages)
    return [first.model_dump(), second.model_dump()]
