"""The host a simulator recording is stored under: the provider's real API host.

A cassette recorded against ``harness sim serve`` on ``127.0.0.1:<port>`` holds
the request the SDK would have sent to the real API, so it is stored with that
API's default host. Plain vcrpy and pytest-recording (whose default ``match_on``
compares scheme, host and port) then replay it for a client built with the SDK's
default base URL, as harness builds it for replay. Where the traffic really went
stays in the cassette's metadata (``recorded_against: 127.0.0.1:<port> (harness
simulator)``), and every response keeps the simulator's marker header.
"""

from __future__ import annotations

import functools
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from harness.core.wires import WIRES, Capability, path_matches, ready_wires, wire

__all__ = ["CANONICAL_HOSTS", "VCRPY_MATCH_ON", "canonical_uri"]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def _default_origin(name: str) -> str | None:
    """The origin of the SDK client a wire is sent through (Responses: OpenAI's client's)."""
    entry = wire(name)
    if entry.sdk_base_url:
        return _origin(entry.sdk_base_url)
    sibling = next((w for w in WIRES if w.sdk_base_url and w.hosts == entry.hosts), None)
    return _origin(sibling.sdk_base_url) if sibling and sibling.sdk_base_url else None


# Path template -> the real API's origin, for every wire the simulator serves.
CANONICAL_HOSTS: Final = {
    path: origin
    for entry in ready_wires()
    if Capability.SIMULATOR in entry.capabilities
    and (origin := _default_origin(entry.name)) is not None
    for path in entry.paths
}
# vcrpy's default match_on plus the body (which vcrpy compares as parsed JSON for
# an application/json request): the match_on that replays a harness cassette.
VCRPY_MATCH_ON: Final = ("method", "scheme", "host", "port", "path", "query", "body")


@functools.lru_cache(maxsize=256)
def _host_for(path: str) -> str | None:
    exact = CANONICAL_HOSTS.get(path)
    if exact is not None:
        return exact
    templates = ((t, o) for t, o in CANONICAL_HOSTS.items() if "{" in t)
    return next((origin for template, origin in templates if path_matches(template, path)), None)


def canonical_uri(uri: str) -> str:
    """``uri`` on its provider's real API host; unchanged for any other path.

    Only the paths the simulator serves are moved (the wire registry's request
    paths of every simulated wire), and only with their version prefix intact,
    so a base URL with a path prefix of its own is left alone.
    """
    parts = urlsplit(uri)
    host = _host_for(parts.path)
    if host is None:
        return uri
    canonical = urlsplit(host)
    return urlunsplit(parts._replace(scheme=canonical.scheme, netloc=canonical.netloc))
