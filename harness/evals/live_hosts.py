"""Which hosts make a recording ``live``, and which are this machine or its network.

``live`` is a claim about the answers: a provider's model gave them. So it is an
allowlist, never "anything that is not 127.0.0.1": a mock on this machine reached
as ``0.0.0.0``, ``127.1``, ``0x7f.1``, ``2130706433``, ``[::ffff:127.0.0.1]`` or
``localhost.`` is as much a mock as one reached as ``127.0.0.1``.

- A known provider API host (``KNOWN_LIVE_HOSTS``, Azure OpenAI's
  ``*.openai.azure.com``, Vertex AI's ``*-aiplatform.googleapis.com``) is live.
- Your own gateway is live when declared in ``HARNESS_LIVE_HOSTS`` (comma-separated
  host names; ``.example.com`` covers its subdomains).
- An address that is not globally routable (loopback, unspecified, link-local,
  private, shared, reserved) is local in every spelling ``inet_aton`` accepts, and
  never live, even if declared: declare a gateway by its name.
"""

from __future__ import annotations

import ipaddress
import os
import socket

from harness.core.errors import ConfigurationError

__all__ = [
    "KNOWN_LIVE_HOSTS",
    "LIVE_HOSTS_VAR",
    "declared_live_hosts",
    "is_live_host",
    "is_local_host",
    "parse_address",
]

LIVE_HOSTS_VAR = "HARNESS_LIVE_HOSTS"
KNOWN_LIVE_HOSTS = frozenset(
    {
        "api.anthropic.com",
        "api.deepseek.com",
        "api.fireworks.ai",
        "api.groq.com",
        "api.mistral.ai",
        "api.openai.com",
        "api.together.xyz",
        "api.x.ai",
        "aiplatform.googleapis.com",
        "generativelanguage.googleapis.com",
        "openrouter.ai",
    }
)
# Azure OpenAI's resources; Vertex AI's regional hosts (europe-west4-aiplatform...).
_KNOWN_SUFFIXES = (".openai.azure.com", "-aiplatform.googleapis.com")
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _name(host: str) -> str:
    """``host`` lower-cased, without brackets, IPv6 zone or the root's trailing dot."""
    return host.strip().strip("[]").split("%", 1)[0].lower().rstrip(".")


def parse_address(host: str) -> IPAddress | None:
    """The IP address ``host`` spells, in any form a resolver accepts, or None (a name).

    ``ipaddress`` reads only dotted quads; ``inet_aton`` also reads ``127.1``,
    ``0x7f.0.0.1``, ``0177.0.0.1`` and ``2130706433``, which connect just the same.
    """
    name = _name(host)
    if not name:
        return None
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        pass
    if not all(c in "0123456789abcdefx." for c in name):
        return None  # a host name (inet_aton would also take trailing junk)
    try:
        return ipaddress.IPv4Address(socket.inet_aton(name))
    except OSError:
        return None


def _is_local_address(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or address.teredo
        if isinstance(embedded, tuple):  # teredo: (server, client)
            embedded = embedded[1]
        if embedded is not None and _is_local_address(embedded):
            return True
    return not address.is_global


def is_local_host(host: str) -> bool:
    """Whether ``host`` is this machine or a private network, in any spelling."""
    name = _name(host)
    if not name:
        return False
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    address = parse_address(name)
    return address is not None and _is_local_address(address)


def declared_live_hosts() -> tuple[str, ...]:
    """The gateways ``HARNESS_LIVE_HOSTS`` declares; a local address there is refused.

    Raises:
        ConfigurationError: an entry names an address on this machine or network.
    """
    entries = [_name(e) for e in os.environ.get(LIVE_HOSTS_VAR, "").split(",")]
    hosts = tuple(e for e in entries if e)
    for host in hosts:
        if is_local_host(host.lstrip(".")):
            raise ConfigurationError(
                f"{LIVE_HOSTS_VAR} names {host}, an address on this machine or a private "
                "network, which is never labelled live; name your gateway's public host name"
            )
    return hosts


def is_live_host(host: str) -> bool:
    """Whether answers from ``host`` count as a real model's: a known or declared API host."""
    name = _name(host)
    if not name or is_local_host(name):
        return False
    if name in KNOWN_LIVE_HOSTS or name.endswith(_KNOWN_SUFFIXES):
        return True
    for declared in declared_live_hosts():
        if name == declared.lstrip(".") or (declared.startswith(".") and name.endswith(declared)):
            return True
    return False
