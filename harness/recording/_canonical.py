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

from typing import Final
from urllib.parse import urlsplit, urlunsplit

__all__ = ["CANONICAL_HOSTS", "VCRPY_MATCH_ON", "canonical_uri"]

CANONICAL_HOSTS: Final = {
    "/v1/chat/completions": "https://api.openai.com",
    "/v1/responses": "https://api.openai.com",
    "/v1/messages": "https://api.anthropic.com",
}
# vcrpy's default match_on plus the body (which vcrpy compares as parsed JSON for
# an application/json request): the match_on that replays a harness cassette.
VCRPY_MATCH_ON: Final = ("method", "scheme", "host", "port", "path", "query", "body")


def canonical_uri(uri: str) -> str:
    """``uri`` on its provider's real API host; unchanged for any other path.

    Only the paths the simulator serves are moved, and only with their ``/v1``
    prefix intact, so a base URL with a path prefix of its own is left alone.
    """
    parts = urlsplit(uri)
    host = CANONICAL_HOSTS.get(parts.path)
    if host is None:
        return uri
    canonical = urlsplit(host)
    return urlunsplit(parts._replace(scheme=canonical.scheme, netloc=canonical.netloc))
