"""Loopback stand-ins that no cassette records: harness's own servers for other traffic.

An MCP server's HTTP stand-in (:mod:`harness.mcp._replay_http`) listens on
127.0.0.1 for the agent's MCP client. When the test also records the model
through ``llm_cassette``, that client's requests go through the same patched
HTTP libraries: they would land in the model cassette, and a replay would miss
on them. A stand-in registers its port here while it listens, and every open
cassette leaves requests to that port on a loopback name alone (neither played
nor recorded), whatever order the fixtures were set up in: the check is made
per request, not when the cassette opens. A recording stand-in relays to the
real server from inside :func:`relaying`, so that hop is left out too.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from urllib.parse import urlsplit

from harness.core.urls import is_loopback_host

__all__ = ["is_stand_in", "register_stand_in", "relaying", "unregister_stand_in"]

_ports: Counter[int] = Counter()
_lock = threading.Lock()
_relay = threading.local()


def register_stand_in(port: int) -> None:
    """Leave requests to ``port`` on this machine out of every cassette until unregistered."""
    with _lock:
        _ports[port] += 1


def unregister_stand_in(port: int) -> None:
    """Undo one :func:`register_stand_in` of ``port``."""
    with _lock:
        _ports[port] -= 1
        if _ports[port] <= 0:
            del _ports[port]


@contextlib.contextmanager
def relaying() -> Iterator[None]:
    """Inside the block, this thread's requests are a stand-in's relay to its real server."""
    depth = getattr(_relay, "depth", 0)
    _relay.depth = depth + 1
    try:
        yield
    finally:
        _relay.depth = depth


def is_stand_in(uri: str) -> bool:
    """Whether a request to ``uri`` is a stand-in's traffic: sent to a registered
    stand-in (a loopback host, a registered port), or relayed by one from this thread."""
    if getattr(_relay, "depth", 0):
        return True
    if not _ports:
        return False
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return False
    return port is not None and port in _ports and is_loopback_host(parts.hostname or "")
