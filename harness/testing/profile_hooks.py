"""What a framework profile does around each test, beside the request fields it ignores.

- ``openai-agents``: the Agents SDK sends every model built from a name
  (``Agent(model="gpt-4.1-mini")``) through one process-wide ``AsyncClient``
  (``agents.models.openai_provider.shared_http_client``). Its pool keeps the
  connections a test opened, bound to that test's event loop; after
  ``asyncio.run`` closed the loop, the next test that records reuses one and
  fails with ``RuntimeError: Event loop is closed``. (A replay opens no
  connection, so it passes either way.) The profile gives the SDK a fresh
  client for each test, which keeps no connection alive after its response, so
  nothing of a test outlives its loop; the SDK's own client is restored after.
  A client the test passes to the SDK itself (``AsyncOpenAI(...)``,
  ``set_default_openai_client``) is left alone.
- ``litellm``: ``import litellm`` downloads its model price map from
  raw.githubusercontent.com; in a replay the network guard refuses that with an
  error LiteLLM does not catch, so the import crashes, and a failed fetch also
  starts a thread that retries it after the test. The profile sets LiteLLM's
  own switches for the test (``LITELLM_LOCAL_MODEL_COST_MAP``: its bundled price
  map; ``LITELLM_OFFLINE_MODE``: its bundled catalogs and tokenizers too), and
  the host is offline as a fallback for a LiteLLM without them. Both act on an
  import inside the test; a LiteLLM imported earlier (at a test module's top)
  fetched before any cassette opened: set the variables in the environment then.
"""

from __future__ import annotations

import contextlib
import importlib
import os
from collections.abc import Iterator
from typing import Any

__all__ = ["profile_hooks"]


@contextlib.contextmanager
def profile_hooks(profiles: tuple[str, ...]) -> Iterator[None]:
    """Run the per-test set-up of each profile in ``profiles`` around the block."""
    with contextlib.ExitStack() as stack:
        if "openai-agents" in profiles:
            stack.enter_context(_agents_sdk_client())
        if "litellm" in profiles:
            stack.enter_context(_environment(_LITELLM_OFFLINE))
        yield


_LITELLM_OFFLINE = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_OFFLINE_MODE": "true"}


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables in the block, restoring what was there after."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _fresh_client(provider: Any) -> Any:
    """The SDK's own default client class, without keep-alive (httpx2 or httpx)."""
    for name, library in (
        ("DefaultAsyncHttpx2Client", "httpx2"),
        ("DefaultAsyncHttpxClient", "httpx"),
    ):
        cls = getattr(provider, name, None)
        if cls is not None:
            limits = importlib.import_module(library).Limits(max_keepalive_connections=0)
            return cls(limits=limits)
    return None


@contextlib.contextmanager
def _agents_sdk_client() -> Iterator[None]:
    try:
        provider: Any = importlib.import_module("agents.models.openai_provider")
    except ImportError:
        yield  # the profile is set, the SDK is not installed: nothing to give it
        return
    client = _fresh_client(provider) if hasattr(provider, "_http_client") else None
    if client is None:
        yield  # an SDK version without the shared client
        return
    saved = provider._http_client
    provider._http_client = client
    try:
        yield
    finally:
        provider._http_client = saved
