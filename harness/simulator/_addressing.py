"""Whether a request is addressed to the simulator itself.

The simulator has no authentication, so it answers only requests that name it:
a ``Host`` header (or an absolute-form request target) whose port is its port
and whose host is this machine (``localhost``, 127.0.0.0/8, ``::1``) or the
address it is bound to. A request for another host reached it by mistake (a
client whose ``HTTPS_PROXY``/``HTTP_PROXY`` points at it, or a ``base_url`` typo)
or by design (DNS rebinding from a web page: ``Host: attacker.example``); it
gets a 421 Misdirected Request, never a model answer. Bound to every interface
(``--allow-remote`` with ``0.0.0.0``), any host name with the right port is its own.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

__all__ = ["foreign_target", "split_target"]

_WILDCARDS = frozenset({"", "0.0.0.0", "::"})


def _is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def split_target(target: str) -> tuple[str | None, str]:
    """``(authority, path)`` of a request target; authority is None in origin form.

    An absolute-form target (``http://host/path``) names its host; a CONNECT
    target (``host:443``) is all authority.
    """
    if target.startswith("/"):
        return None, target
    if "://" not in target:
        return target, ""
    parts = urlsplit(target)
    path = parts.path or "/"
    return parts.netloc, f"{path}?{parts.query}" if parts.query else path


def foreign_target(authority: str | None, bound: tuple[str, int]) -> str | None:
    """The host a request names when it is not this server, else None.

    Args:
        authority: the absolute-form target's authority, else the Host header
            (None when there is neither).
        bound: the ``(host, port)`` the server listens on.
    """
    if authority is None:
        return "no Host header"
    try:
        parts = urlsplit(f"//{authority}")
        host, port = (parts.hostname or "").rstrip("."), parts.port or 80
    except ValueError:
        return authority
    bound_host, bound_port = bound
    if port != bound_port:
        return authority
    if bound_host in _WILDCARDS or _is_loopback(host) or host == bound_host.strip("[]").lower():
        return None
    return authority
