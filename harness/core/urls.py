"""What a URL says: whether its host is this machine, and the login written into it.

Hosts: :func:`is_loopback_host` is harness's one answer to "is this host this
machine?" (the replay network guard, the placeholder key for a local server, the
simulator's bind check and the live/local labels all ask it), so a spelling one
of them accepts is accepted by all: ``localhost``, ``localhost.``, ``*.localhost``,
``127.0.0.0/8`` in any form ``inet_aton`` reads (``127.1``, ``0x7f.0.0.1``,
``2130706433``), ``::1`` and ``::ffff:127.0.0.1``, bracketed or with a zone.

Credentials: a base URL may carry a login in its userinfo part
(``http://user:password@host``); the SDKs send it as basic auth, and every place
harness names the URL (a cassette's ``uri`` and ``recorded_against``, an error
line, a trace) would otherwise repeat it.

Pure functions of strings (no lookup, no socket), so the lowest layers can use them.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from typing import Final
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "LOCAL_NAMES",
    "USERINFO_REDACTED",
    "IPAddress",
    "base_url_problem",
    "has_userinfo",
    "host_name",
    "is_loopback_address",
    "is_loopback_host",
    "is_loopback_url",
    "parse_address",
    "redact_userinfo",
    "shown_url",
    "strip_userinfo",
    "url_problem",
]

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# Names every resolver maps to this machine (RFC 6761 reserves *.localhost too).
LOCAL_NAMES: Final = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
)


def host_name(host: str) -> str:
    """``host`` lower-cased, without brackets, IPv6 zone or the root's trailing dot."""
    return host.strip().strip("[]").split("%", 1)[0].lower().rstrip(".")


def parse_address(host: str) -> IPAddress | None:
    """The IP address ``host`` spells, in any form a resolver accepts, or None (a name).

    ``ipaddress`` reads only dotted quads; ``inet_aton`` also reads ``127.1``,
    ``0x7f.0.0.1``, ``0177.0.0.1`` and ``2130706433``, which connect just the same.
    """
    name = host_name(host)
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


def is_loopback_address(address: IPAddress) -> bool:
    """Whether ``address`` is this machine: 127.0.0.0/8, ``::1``, or one mapped into IPv6."""
    if address.is_loopback:
        return True
    mapped = getattr(address, "ipv4_mapped", None)
    return mapped is not None and bool(mapped.is_loopback)


def is_loopback_host(host: object) -> bool:
    """Whether ``host`` (a name or an address, str or bytes) is this machine, in any spelling."""
    if isinstance(host, bytes):
        host = host.decode("ascii", errors="replace")
    if not isinstance(host, str):
        return False
    name = host_name(host)
    if not name:
        return False
    if name in LOCAL_NAMES or name.endswith(".localhost"):
        return True
    address = parse_address(name)
    return address is not None and is_loopback_address(address)


def is_loopback_url(url: str | None) -> bool:
    """Whether ``url`` points at this machine (its host passes :func:`is_loopback_host`)."""
    if not url:
        return False
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return False
    return is_loopback_host(host)


def base_url_problem(name: str, url: str) -> str | None:
    """What is wrong with ``url`` as a provider's base URL, as one line naming ``name``
    (the variable or option it came from) and the fix; None when nothing is.

    A URL without ``http://`` parses as a path (or as a scheme ``127.0.0.1``), so an
    SDK given one fails much later, as a connection error or a missing key; every
    place that reads a base URL asks this first. A login in the URL is not repeated.
    """
    problem = url_problem(url)
    return None if problem is None else f"{name}={shown_url(url)} {problem}"


def url_problem(url: str) -> str | None:
    """:func:`base_url_problem` without the name: ``has no scheme; use http://...``."""
    text = url.strip()
    schemeless = "://" not in text
    try:
        parts = urlsplit("http://" + text if schemeless else text)
        host = parts.hostname
    except ValueError as exc:
        return f"is not a URL ({exc}); write it as http://HOST:PORT"
    if schemeless:
        scheme = "http" if is_loopback_host(host) else "https"
        return f"has no scheme; use {scheme}://{shown_url(text)}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"has the scheme {parts.scheme!r}; use http:// or https://"
    if not host:
        return f"has no host; write it as {parts.scheme}://HOST:PORT"
    return None


def shown_url(url: str) -> str:
    """``url`` as a message may show it: its login redacted, with or without a scheme."""
    text = url.strip()
    if "://" in text:
        shown = redact_userinfo(text)
    else:
        shown = redact_userinfo("http://" + text).removeprefix("http://")
    # A control character (a pasted newline) is shown escaped: the error stays one line.
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in shown)


USERINFO_REDACTED: Final = "[REDACTED]"

# scheme://<userinfo>@ where userinfo has no '/', '?', '#', '@' or whitespace.
_USERINFO_IN_TEXT: Final = re.compile(
    r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/?#@\s\"'<>]+)@"
)


def has_userinfo(url: str) -> bool:
    """True when ``url`` (or any URL inside the text) carries a ``user[:password]@`` part."""
    return any(
        found.group("userinfo") != USERINFO_REDACTED for found in _USERINFO_IN_TEXT.finditer(url)
    )


def strip_userinfo(url: str) -> str:
    """``url`` without its ``user[:password]@`` part (unchanged when it has none).

    What a cassette stores: requests match on method, path, query and body, so
    dropping the login changes no match, and no file ever holds it.
    """
    if "@" not in url:
        return url
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def redact_userinfo(text: str) -> str:
    """``text`` with every URL's userinfo replaced by ``[REDACTED]`` (for messages)."""
    if "@" not in text:
        return text
    return _USERINFO_IN_TEXT.sub(lambda found: f"{found.group('scheme')}{USERINFO_REDACTED}@", text)
