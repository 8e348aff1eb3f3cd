"""The skeleton every SDK adapter shares: client ownership, sync/async dispatch, errors.

Each adapter (Chat Completions, Messages, Responses) differs only in how it
turns an ``LLMRequest`` into a call and the answer back into an ``LLMResponse``;
what surrounds that call is the same and lives here once:

- a client built from an API key is owned (closed by :meth:`SdkProvider.close`),
  a client passed in is the caller's;
- ``complete`` refuses an async client with a one-line hint, ``acomplete`` awaits
  it natively and runs ``complete`` in a thread for a sync one;
- every SDK, transport and malformed-stream failure becomes the provider's
  ``ProviderError`` with keys redacted, while a ``CassetteError`` (a replay miss)
  passes through unchanged so the test sees the miss, not a provider failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from harness.core.errors import CassetteError, ConfigurationError, ProviderError
from harness.core.messages import LLMRequest, LLMResponse
from harness.providers.credentials import require_api_key
from harness.providers.sdk_errors import chainable_cause, is_transport_error

__all__ = ["SdkProvider"]

SyncClientT = TypeVar("SyncClientT")
AsyncClientT = TypeVar("AsyncClientT")


class SdkProvider(ABC, Generic[SyncClientT, AsyncClientT]):
    """Base of the SDK adapters; subclasses implement the four hooks below.

    Hooks:
        ``_client_types``: the SDK's (sync, async) client classes, imported lazily.
        ``_sdk_errors``: the exception classes to translate, and the translation.
        ``_call`` / ``_acall``: one request on a sync / async client.
    """

    name: ClassVar[str]
    # The sentence ``complete`` raises when it was given an async client.
    _async_client_hint: ClassVar[str]

    model: str
    stream: bool

    def _connect(
        self,
        client: SyncClientT | AsyncClientT | None,
        *,
        api_key: str | None,
        key_env: str,
        base_url: str | None,
        build: Callable[[str], SyncClientT],
    ) -> None:
        """Keep ``client``, or build an owned one from the key (``key_env`` by default).

        ``base_url`` (already read from the environment) on this machine needs no
        key: the simulator takes any (see docs/cassettes.md).
        """
        self._secrets: tuple[str, ...] = ()
        self._owns_client = client is None
        if client is None:
            key = require_api_key(api_key, key_env, self.name, base_url=base_url)
            self._secrets = (key,)
            client = build(key)
        self._client: SyncClientT | AsyncClientT = client

    @classmethod
    def http_library(cls) -> tuple[str, ...] | None:
        """The vcrpy patcher name of the HTTP library the SDK's client is built on.

        None (a replay patches every library) when the SDK picks its library at
        run time, as google-genai does (httpx2, httpx or aiohttp).
        """
        return None

    @staticmethod
    def _httpx_library(client: type) -> tuple[str, ...] | None:
        """``("httpx",)`` or ``("httpx2",)``: the library ``client`` subclasses, else None."""
        for base in client.__mro__:
            library = base.__module__.partition(".")[0]
            if library in ("httpx", "httpx2"):
                return (library,)
        return None

    @abstractmethod
    def _client_types(self) -> tuple[type[SyncClientT], type[AsyncClientT]]: ...

    @abstractmethod
    def _sdk_errors(
        self,
    ) -> tuple[tuple[type[BaseException], ...], Callable[..., ProviderError]]: ...

    @abstractmethod
    def _call(self, client: SyncClientT, request: LLMRequest) -> LLMResponse: ...

    @abstractmethod
    async def _acall(self, client: AsyncClientT, request: LLMRequest) -> LLMResponse: ...

    def __repr__(self) -> str:
        return f"{type(self).__name__}(model={self.model!r}, stream={self.stream})"

    def complete(self, request: LLMRequest) -> LLMResponse:
        """Send one request; SDK failures become ``ProviderError``."""
        _, async_type = self._client_types()
        client = self._client
        if isinstance(client, async_type):
            raise ConfigurationError(self._async_client_hint)
        with self._translated_errors():
            return self._call(cast(SyncClientT, client), request)

    async def acomplete(self, request: LLMRequest) -> LLMResponse:
        """``complete`` for async code (awaits an async client natively)."""
        _, async_type = self._client_types()
        client = self._client
        if not isinstance(client, async_type):
            return await asyncio.to_thread(self.complete, request)
        with self._translated_errors():
            return await self._acall(client, request)

    @contextlib.contextmanager
    def _translated_errors(self) -> Iterator[None]:
        errors, translate = self._sdk_errors()
        caught: tuple[type[BaseException], ...] = (*errors, json.JSONDecodeError)
        try:
            yield
        # A malformed stream event surfaces as a JSON error, a dropped stream as httpx2's.
        except CassetteError:
            raise  # a replay miss must reach the test unchanged, never as a ProviderError
        except Exception as exc:
            # Transport errors by name, not class: a second httpcore2 copy's pass the SDK.
            if not (isinstance(exc, caught) or is_transport_error(exc)):
                raise
            cause = chainable_cause(exc, secrets=self._secrets)
            base_url = str(getattr(self._client, "base_url", "")) or None
            raise translate(exc, secrets=self._secrets, base_url=base_url) from cause

    def close(self) -> None:
        """Close the HTTP client, unless it was passed in by the caller."""
        sync_type, _ = self._client_types()
        if self._owns_client and isinstance(self._client, sync_type):
            owned: Any = self._client  # every SDK's sync client has close()
            owned.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
