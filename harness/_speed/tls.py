"""One TLS context per process for the SDK clients harness builds.

Each ``openai.OpenAI`` / ``anthropic.Anthropic`` client builds an ``httpx2``
client, and each of those builds an ``ssl.SSLContext`` and loads the CA bundle
into it: about 17 ms, per client, on a 2-core machine. A suite of 1,000 eval
rows builds a client per row and, replaying, never opens a TLS connection at
all. So the clients harness builds share one context, made on first use.

Sharing it is safe for live traffic too: a client shares only this context,
never a connection pool, cookies or headers. Nothing in harness changes the
context after it is built; the one setting the HTTP layer writes on it at
connect time (ALPN) is the same ``http/1.1`` for every one of these clients,
since none of them enables HTTP/2. The context is keyed on ``SSL_CERT_FILE`` /
``SSL_CERT_DIR``, which the HTTP layer reads, so changing them gives a new one.

Handing the SDK an HTTP client of our own loses one thing its default client
does: close itself (and its sockets) when it is garbage collected.
:func:`close_with` restores that.

A replay never reaches the network, so the clients built for one
(:func:`offline_clients`) skip the environment's proxy settings: reading them
scans every environment variable, about 0.15 ms a client here, and with
``trust_env`` off a proxy variable cannot change how a replay is served.
"""

from __future__ import annotations

import functools
import os
import ssl
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol

from harness._speed import enabled

__all__ = ["close_with", "http_client_options", "offline_clients", "shared_ssl_context"]

_offline: ContextVar[bool] = ContextVar("harness_offline_clients", default=False)


class _Closable(Protocol):
    def close(self) -> None: ...


def shared_ssl_context() -> ssl.SSLContext:
    """The process's TLS context for SDK clients, as ``httpx2`` would build it."""
    return _context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


def http_client_options() -> dict[str, Any]:
    """The keyword arguments of the SDK's ``DefaultHttpxClient`` for a client harness builds.

    None with the ``tls_context`` tweak off (``HARNESS_SPEED_OFF``): the client is
    built as the SDK builds its own.
    """
    if not enabled("tls_context"):
        return {}
    options: dict[str, Any] = {"verify": shared_ssl_context()}
    if _offline.get():
        options["trust_env"] = False
    return options


@contextmanager
def offline_clients() -> Iterator[None]:
    """SDK clients built inside serve a replay: they read no proxy settings from the
    environment. Only for clients whose traffic a cassette answers."""
    token = _offline.set(True)
    try:
        yield
    finally:
        _offline.reset(token)


@functools.cache
def _context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    import httpx2

    del cert_file, cert_dir  # the cache key: httpx2 reads them from the environment itself
    return httpx2.create_ssl_context()


def close_with(owner: object, http_client: _Closable) -> None:
    """Close ``http_client`` when ``owner`` (the SDK client using it) is collected,
    as the SDK's own default client does, so an unclosed provider leaks no socket."""
    weakref.finalize(owner, http_client.close)
