"""Which hosts make a recording ``live``, and which are this machine or its network.

``live`` is a claim about the answers: a provider's model gave them. So it is an
allowlist, never "anything that is not 127.0.0.1": a mock on this machine reached
as ``0.0.0.0``, ``127.1``, ``0x7f.1``, ``2130706433``, ``[::ffff:127.0.0.1]`` or
``localhost.`` is as much a mock as one reached as ``127.0.0.1``.

- A known provider API host is live: the wire registry's (``harness.core.wires``:
  every wire's hosts, known gateways, hosted variants such as Azure OpenAI's
  ``*.openai.azure.com``), the same list the live-call guard blocks.
- Your own gateway is live when declared in ``HARNESS_LIVE_HOSTS`` (comma-separated
  host names; ``.example.com`` covers its subdomains).
- An address that is not globally routable (loopback, unspecified, link-local,
  private, shared, reserved) is local in every spelling ``inet_aton`` accepts, and
  never live, even if declared: declare a gateway by its name.
"""

from __future__ import annotations

import ipaddress

from harness.core.errors import ConfigurationError
from harness.core.urls import (
    IPAddress,
    host_name,
    is_loopback_address,
    is_loopback_host,
    parse_address,
)
from harness.core.wires import is_live_api_host, live_host_patterns, local_server
from harness.settings import env_value

__all__ = [
    "KNOWN_LIVE_HOSTS",
    "LIVE_HOSTS_VAR",
    "declared_live_hosts",
    "is_live_host",
    "is_local_host",
    "local_server_name",
    "parse_address",
]

LIVE_HOSTS_VAR = "HARNESS_LIVE_HOSTS"
# The wire registry's live hosts (patterns such as ``*.openai.azure.com`` included).
KNOWN_LIVE_HOSTS = frozenset(live_host_patterns())
_name = host_name


def _is_local_address(address: IPAddress) -> bool:
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour or address.teredo
        if isinstance(embedded, tuple):  # teredo: (server, client)
            embedded = embedded[1]
        if embedded is not None and _is_local_address(embedded):
            return True
    return is_loopback_address(address) or not address.is_global


def is_local_host(host: str) -> bool:
    """Whether ``host`` is this machine or a private network, in any spelling."""
    name = _name(host)
    if not name:
        return False
    if is_loopback_host(name):
        return True
    address = parse_address(name)
    return address is not None and _is_local_address(address)


def local_server_name(host: str, port: int | None) -> str | None:
    """The known OpenAI-compatible server (``ollama``, ``vllm``, ...) at ``host:port``.

    Only a host on this machine or its network is labelled, and only by the
    server's default port (Ollama 11434, vLLM 8000, LM Studio 1234, LiteLLM 4000):
    a server moved to another port stays unknown.
    """
    if not is_local_host(host):
        return None
    server = local_server(port)
    return server.name if server is not None else None


def declared_live_hosts() -> tuple[str, ...]:
    """The gateways ``HARNESS_LIVE_HOSTS`` declares; a local address there is refused.

    Raises:
        ConfigurationError: an entry names an address on this machine or network.
    """
    entries = [_name(e) for e in (env_value("live_hosts") or "").split(",")]
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
    if is_live_api_host(name):
        return True
    for declared in declared_live_hosts():
        if name == declared.lstrip(".") or (declared.startswith(".") and name.endswith(declared)):
            return True
    return False
