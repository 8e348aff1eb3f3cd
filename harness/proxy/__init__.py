"""A record-through proxy: the model traffic of any process, recorded and replayed.

An agent that runs as its own program (a coding-agent CLI, a Node or Go agent,
the Claude Agent SDK's bundled CLI) makes no HTTP call harness's in-process
cassettes can see. ``harness proxy`` is a loopback server that speaks every
wire of the registry: pointed at the real API or ``harness sim serve``
(``--upstream``) it forwards and records; without an upstream it answers from
the cassette and never forwards. Profiles (``codex``, ``claude-code``) pin the
per-run values those agents put in their requests. The ``llm_proxy`` pytest
fixture (``harness.testing``) runs it for a test. ``harness.proxy.contain``
runs such a process in a network namespace whose only way out is the proxy.

Names resolve on first use: the profiles are read by the pytest plugin's
config, which needs neither the server nor its HTTP client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.proxy.contain import (
        BlockedConnection,
        ContainedCommand,
        Refusal,
        contained_command,
        unreachable_hosts,
    )
    from harness.proxy.normalise import IGNORED, RequestNormaliser, TextRule
    from harness.proxy.profiles import PROFILES, ProxyProfile, normaliser_for, profile
    from harness.proxy.run import READY_PREFIX, run_proxy
    from harness.proxy.server import ProxyServer
    from harness.proxy.spec import ANY_WIRE, ProxySpec, parse_upstreams

__all__ = [
    "ANY_WIRE",
    "IGNORED",
    "PROFILES",
    "READY_PREFIX",
    "BlockedConnection",
    "ContainedCommand",
    "ProxyProfile",
    "ProxyServer",
    "ProxySpec",
    "Refusal",
    "RequestNormaliser",
    "TextRule",
    "contained_command",
    "normaliser_for",
    "parse_upstreams",
    "profile",
    "run_proxy",
    "unreachable_hosts",
]

_HOME = {
    "ANY_WIRE": "spec",
    "BlockedConnection": "contain",
    "ContainedCommand": "contain",
    "Refusal": "contain",
    "contained_command": "contain",
    "unreachable_hosts": "contain",
    "IGNORED": "normalise",
    "PROFILES": "profiles",
    "READY_PREFIX": "run",
    "ProxyProfile": "profiles",
    "ProxyServer": "server",
    "ProxySpec": "spec",
    "RequestNormaliser": "normalise",
    "TextRule": "normalise",
    "normaliser_for": "profiles",
    "parse_upstreams": "spec",
    "profile": "profiles",
    "run_proxy": "run",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
