"""Offline hosts: while a cassette is open, a name that fails as a dead network does.

A host a test leaves out of its cassette (``ignore_hosts``) goes to the network;
in a replay the network guard then refuses it with a ``CassetteError``, which no
library expects: LiteLLM's price-map download at import, a telemetry ping, an
update check all crash instead of falling back. An *offline* host fails where a
machine without network fails: its name lookup raises ``socket.gaierror``, which
each HTTP library turns into its own catchable connection error
(``httpx.ConnectError``, ``requests.ConnectionError``, aiohttp's
``ClientConnectorError``), in every record mode, so that a recording and its
replay see the same failure.

The lookup functions of ``socket`` (and ``create_connection``, which the
network guard checks before any lookup) are patched while any cassette with offline
hosts is open (refcounted per host, so nested and threaded cassettes share it).
Every client resolves through them, numeric addresses included, before it
connects.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from harness.recording._nesting import NestedPatch

__all__ = ["OfflineHostError", "offline_hosts"]

_LOOKUPS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex")
_saved: dict[str, Callable[..., Any]] = {}
_offline: Counter[str] = Counter()
_lock = threading.Lock()


class OfflineHostError(socket.gaierror):
    """A name lookup of a host the test declared offline (a ``socket.gaierror``)."""


def _name(host: object) -> str:
    text = host.decode("ascii", errors="replace") if isinstance(host, bytes) else str(host)
    return text.strip("[]").rstrip(".").lower()


def _guarded(original: Callable[..., Any]) -> Callable[..., Any]:
    def lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and _offline[_name(host)] > 0:
            raise OfflineHostError(
                socket.EAI_NONAME,
                f"{_name(host)} is offline in this test (llm_cassette offline_hosts): "
                "it fails as it would without a network",
            )
        return original(host, *args, **kwargs)

    return lookup


def _guarded_connection(original: Callable[..., Any]) -> Callable[..., Any]:
    def create_connection(address: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(address, tuple) and address:
            _guarded(lambda *_: None)(address[0])  # raises for an offline host
        return original(address, *args, **kwargs)

    return create_connection


def _install() -> None:
    for name in _LOOKUPS:
        _saved[name] = getattr(socket, name)
        setattr(socket, name, _guarded(_saved[name]))
    # httpcore connects through create_connection, which the network guard checks first.
    _saved["create_connection"] = socket.create_connection
    socket.create_connection = _guarded_connection(socket.create_connection)


def _uninstall() -> None:
    for name in (*_LOOKUPS, "create_connection"):
        setattr(socket, name, _saved.pop(name))


_patch = NestedPatch(_install, _uninstall)


@contextlib.contextmanager
def offline_hosts(hosts: Iterable[str]) -> Iterator[None]:
    """Make every name lookup of ``hosts`` fail as on a dead network inside the block."""
    names = [_name(host) for host in hosts]
    if not names:
        yield
        return
    with _lock:
        _offline.update(names)
    try:
        with _patch.held():
            yield
    finally:
        with _lock:
            _offline.subtract(names)
            for name in names:
                if _offline[name] <= 0:
                    del _offline[name]
