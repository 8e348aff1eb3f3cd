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
"""

from __future__ import annotations

import functools
import os
import ssl
import weakref
from typing import Protocol

__all__ = ["close_with", "shared_ssl_context"]


class _Closable(Protocol):
    def close(self) -> None: ...


def shared_ssl_context() -> ssl.SSLContext:
    """The process's TLS context for SDK clients, as ``httpx2`` would build it."""
    return _context(os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))


@functools.cache
def _context(cert_file: str | None, cert_dir: str | None) -> ssl.SSLContext:
    import httpx2

    del cert_file, cert_dir  # the cache key: httpx2 reads them from the environment itself
    return httpx2.create_ssl_context()


def close_with(owner: object, http_client: _Closable) -> None:
    """Close ``http_client`` when ``owner`` (the SDK client using it) is collected,
    as the SDK's own default client does, so an unclosed provider leaks no socket."""
    weakref.finalize(owner, http_client.close)
