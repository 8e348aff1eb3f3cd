"""What a contained child's own errors say about the hosts it could not reach.

A client that ignores the proxy variables never meets the trap: its name lookup
fails inside the namespace, and most clients then name the host in their error.
"""

from __future__ import annotations

import re

__all__ = ["unreachable_hosts"]

# How clients that ignore the proxy variables say a host could not be reached
# (a failed name lookup, mostly), each with the host in its first group.
# A host with at least one dot (every API's has): fewer words taken for hosts.
_HOST = r"([A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
_UNREACHABLE: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern)
    for pattern in (
        rf"getaddrinfo (?:EAI_AGAIN|ENOTFOUND|EAI_NONAME|EAI_FAIL) {_HOST}",  # Node
        rf"Could not resolve host: {_HOST}",  # curl
        rf"\blookup {_HOST}(?: on \S+:53: |: (?:no such host|server misbehaving))",  # Go
        rf"Failed to resolve '{_HOST}'",  # urllib3 2 (requests)
        rf"HTTPS?ConnectionPool\(host='{_HOST}', port=\d+\): Max retries exceeded",  # urllib3
        rf"error sending request for url \(\w+s?://{_HOST}[:/)]",  # Rust's reqwest (Codex)
    )
)
_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def unreachable_hosts(output: str) -> tuple[str, ...]:
    """The hosts a contained child's output says it could not reach, in order, once each.

    For clients that ignore the proxy variables (so the trap never hears of
    them): Node (``getaddrinfo EAI_AGAIN api.openai.com``), curl, Go, requests /
    urllib3 and Rust's reqwest (the Codex CLI) name the host in their errors.
    Python's httpx and the SDKs on it do not (``Temporary failure in name
    resolution``), so nothing is found for them. Loopback names are left out:
    an error there is the proxy's, not containment's.

    It reads text, so it can be fooled by a program that prints such a line on
    purpose: use it to name the host in a failure, or to fail a test only on a
    model API's host (``harness.core.wires.is_live_api_host``), as the
    in-process live guard does; the trap's :attr:`ContainedCommand.blocked` is
    the exact record.
    """
    found: dict[str, int] = {}
    for pattern in _UNREACHABLE:
        for match in pattern.finditer(output):
            host = match.group(1).lower()
            if host not in _LOOPBACK:
                found.setdefault(host, match.start())
    return tuple(sorted(found, key=found.__getitem__))
