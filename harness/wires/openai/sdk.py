"""What the two OpenAI adapters (Chat Completions, Responses) share: the client and its errors.

Both send through an ``openai.OpenAI`` client's ``post`` with bearer auth, own a
client they built from a key, and translate ``openai.OpenAIError``; only the
endpoint, the body and the answer's mapping differ (their own modules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from harness._speed.tls import close_with, http_client_options
from harness.core.errors import ProviderError
from harness.core.wires import wire
from harness.providers.credentials import base_url_from_env
from harness.providers.sdk_errors import openai_provider_error
from harness.providers.sdk_import import preload_sdk
from harness.providers.skeleton import SdkProvider

if TYPE_CHECKING:
    import openai
    from openai import RequestOptions

__all__ = ["OpenAISdkProvider", "bearer_options", "openai_client"]

_OPENAI = wire("openai")  # its key and base URL variables


def openai_client(
    key: str, base_url: str | None, max_retries: int, timeout: float
) -> openai.OpenAI:
    """An ``openai.OpenAI`` client; ``base_url`` None falls back to ``OPENAI_BASE_URL``.

    Its HTTP client is the SDK's default one on the process's shared TLS context
    (:mod:`harness._speed.tls`): the CA bundle is loaded once, not per client.
    """
    preload_sdk("openai")
    import openai

    http = openai.DefaultHttpxClient(**http_client_options())
    client = openai.OpenAI(
        api_key=key,
        base_url=base_url_from_env(base_url, _OPENAI.base_url_env[0]),
        max_retries=max_retries,
        timeout=timeout,
        http_client=http,
    )
    close_with(client, http)
    return client


def bearer_options() -> RequestOptions:
    """What ``chat.completions.create`` and ``responses.create`` pass: authenticate with
    the API key (bearer). A new dict per request, as they make, since the SDK keeps it."""
    return {"security": {"bearer_auth": True}}


class OpenAISdkProvider(SdkProvider["openai.OpenAI", "openai.AsyncOpenAI"]):
    """An adapter on the ``openai`` SDK: its clients, its errors, a client of its own."""

    def _connect_openai(
        self,
        client: openai.OpenAI | openai.AsyncOpenAI | None,
        *,
        api_key: str | None,
        base_url: str | None,
        max_retries: int,
        timeout: float,
    ) -> None:
        """Keep ``client``, or build one from the key (``OPENAI_API_KEY`` by default)."""
        self._connect(
            client,
            api_key=api_key,
            key_env=_OPENAI.key_env[0],
            base_url=base_url_from_env(base_url, _OPENAI.base_url_env[0]),
            build=lambda key: openai_client(key, base_url, max_retries, timeout),
        )

    @classmethod
    def http_library(cls) -> tuple[str, ...] | None:
        """The library the ``openai`` SDK's default HTTP client is built on."""
        preload_sdk("openai")
        import openai

        return cls._httpx_library(openai.DefaultHttpxClient)

    def _client_types(self) -> tuple[type[openai.OpenAI], type[openai.AsyncOpenAI]]:
        import openai

        return openai.OpenAI, openai.AsyncOpenAI

    def _sdk_errors(
        self,
    ) -> tuple[tuple[type[BaseException], ...], Callable[..., ProviderError]]:
        import openai

        return (openai.OpenAIError,), openai_provider_error
