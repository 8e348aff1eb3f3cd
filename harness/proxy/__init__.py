"""A record-through proxy: the model traffic of any process, recorded and replayed.

An agent that runs as its own program (a coding-agent CLI, a Node or Go agent,
the Claude Agent SDK's bundled CLI) makes no HTTP call harness's in-process
cassettes can see. ``harness proxy`` is a loopback server that speaks every
wire of the registry: pointed at the real API or ``harness sim serve``
(``--upstream``) it forwards and records; without an upstream it answers from
the cassette and never forwards. Profiles (``codex``, ``claude-code``) pin the
per-run values those agents put in their requests. The ``llm_proxy`` pytest
fixture (``harness.testing``) runs it for a test. ``harness.proxy._contain``
runs such a process in a network namespace whose only way out is the proxy.

Names resolve on first use: the profiles are read by the pytest plugin's
config, which needs neither the server nor its HTTP client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr

if TYPE_CHECKING:
    from harness.proxy._contain import (
        BlockedConnection,
        ContainedCommand,
        Refusal,
        contained_command,
        unreachable_hosts,
    )
    from harness.proxy._exchanges import exchange_from_json
    from harness.proxy._normalise import IGNORED, RequestNormaliser, TextRule
    from harness.proxy._profiles import PROFILES, ProxyProfile, normaliser_for, profile
    from harness.proxy._run import READY_PREFIX, run_proxy
    from harness.proxy._server import ProxyServer
    from harness.proxy._spec import ANY_WIRE, ProxySpec, parse_upstreams

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
    "exchange_from_json",
    "normaliser_for",
    "parse_upstreams",
    "profile",
    "run_proxy",
    "unreachable_hosts",
]

_HOME = {
    "ANY_WIRE": "_spec",
    "BlockedConnection": "_contain",
    "ContainedCommand": "_contain",
    "Refusal": "_contain",
    "contained_command": "_contain",
    "unreachable_hosts": "_contain",
    "exchange_from_json": "_exchanges",
    "IGNORED": "_normalise",
    "PROFILES": "_profiles",
    "READY_PREFIX": "_run",
    "ProxyProfile": "_profiles",
    "ProxyServer": "_server",
    "ProxySpec": "_spec",
    "RequestNormaliser": "_normalise",
    "TextRule": "_normalise",
    "normaliser_for": "_profiles",
    "parse_upstreams": "_spec",
    "profile": "_profiles",
    "run_proxy": "_run",
}

__getattr__ = lazy_getattr(__name__, _HOME)


def __dir__() -> list[str]:
    return sorted(__all__)
