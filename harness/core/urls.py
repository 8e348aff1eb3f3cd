"""Credentials written into URLs (``http://user:password@host``).

A base URL may carry a login in its userinfo part; the SDKs send it as basic
auth, and every place harness names the URL (a cassette's ``uri`` and
``recorded_against``, an error line, a trace) would otherwise repeat it. Pure
string functions, so the lowest layers can use them.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit, urlunsplit

__all__ = ["USERINFO_REDACTED", "has_userinfo", "redact_userinfo", "strip_userinfo"]

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
