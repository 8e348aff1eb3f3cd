"""The live-call guard: a model API request that no cassette answers fails the test.

In a test marked ``eval`` (and in every test with ``--harness-block-live``) a
name lookup of a model API host raises :class:`LiveCallBlockedError` unless a
recording cassette is open. A replayed request never gets that far (the
cassette answers it before any socket), and a recording cassette's requests are
meant to go out; anything else would be a silent live call that costs money
and makes the eval's verdict depend on the day. The error travels through the
SDKs unwrapped and unretried, and if the agent swallows it the test still fails
at teardown, with the same one error. Through a proxy (``HTTPS_PROXY`` and the
rest, any case) the API's name is never looked up; the guard then refuses the
proxy request or the TLS handshake that names it (:mod:`harness.testing.cassettes._proxy_guard`).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

from harness.core.wires import is_live_api_host, live_host_patterns
from harness.recording import NetworkBlockedError, passthrough, recording_active
from harness.testing.cassettes._proxy_guard import guard_proxied_calls

__all__ = ["MODEL_API_HOSTS", "LiveCallBlockedError", "guard_live_calls", "is_model_api_host"]

# The wire registry's live hosts, the list provenance labels live (patterns included).
MODEL_API_HOSTS = frozenset(live_host_patterns())


class LiveCallBlockedError(NetworkBlockedError):
    """A request to a model API host that no cassette answers, in a guarded test."""


def is_model_api_host(host: object) -> bool:
    """Whether ``host`` is a model provider's API: a live host of the wire registry."""
    if isinstance(host, bytes):
        host = host.decode("ascii", errors="replace")
    if not isinstance(host, str):
        return False
    return is_live_api_host(host)


def _message(host: str, why: str) -> str:
    return (
        f"live call to {host} blocked ({why}): no cassette answers it. Wrap the agent in the "
        "llm_cassette fixture (or use the provider fixture) and record it once with "
        "--record-mode once; a live test belongs under @pytest.mark.live without the eval mark."
    )


_lock = threading.Lock()


@contextlib.contextmanager
def guard_live_calls(why: str, blocked: Callable[[LiveCallBlockedError], None]) -> Iterator[None]:
    """Refuse name lookups of model API hosts in the block unless a cassette records.

    ``blocked`` is told of every refusal (the plugin fails the test with it).
    """
    original: Callable[..., Any] = socket.getaddrinfo

    def check(host: Any) -> None:
        if is_model_api_host(host) and not recording_active():
            error = LiveCallBlockedError(_message(str(host), why))
            blocked(error)
            raise passthrough(error)

    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        check(host)
        return original(host, *args, **kwargs)

    with _lock:
        socket.getaddrinfo = guarded
    try:
        # Through HTTPS_PROXY/HTTP_PROXY/ALL_PROXY the API's name is never looked up.
        with guard_proxied_calls(check):
            yield
    finally:
        with _lock:
            if socket.getaddrinfo is guarded:
                socket.getaddrinfo = original
