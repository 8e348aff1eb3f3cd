"""Keep credentials out of HTTP and SDK logs while a cassette is active.

vcrpy logs every request it does not find (``<Request (POST) https://...?key=...>``)
at INFO, httpx logs each URL, and the SDKs log request options (headers included)
at DEBUG. While a cassette is active, the loggers of vcr, httpx/httpx2,
httpcore/httpcore2, openai, anthropic and botocore (and their existing children) get a
filter that redacts, in the final message: credential query values, the values
of auth headers, and ``sk-``-shaped keys. A filter on a logger only sees the
records created on that logger, so each existing logger of those families gets
one, and the family roots are raised to WARNING for the duration, so a child
logger created later (and so unfiltered) still prints nothing at INFO/DEBUG.
Refcounted like the network guard; everything is restored afterwards.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from typing import Final

from harness.core.wires import secret_header_names
from harness.recording._nesting import NestedPatch
from harness.recording._redact import REDACTED, is_credential_param

__all__ = ["FAMILIES", "quiet_http_logs", "redact_log_text"]

FAMILIES: Final = (
    "vcr",
    "httpx",
    "httpx2",
    "httpcore",
    "httpcore2",
    "openai",
    "anthropic",
    "botocore",  # logs each signed request, headers as bytes, at DEBUG
)
_QUERY_PAIR = re.compile(r"([?&;])([^=&#\s'\"]+)=([^&#\s'\"]*)")
# Every wire's secret headers (the registry's) and the web's own.
_HEADER_NAMES = sorted(
    secret_header_names() | {"cookie", "set-cookie", "proxy-authorization"},
    key=lambda name: (-len(name), name),  # a longer name first where one ends another
)
_HEADER = re.compile(
    rf"""(['"]?(?:{"|".join(map(re.escape, _HEADER_NAMES))})"""
    # ``b'...'``: botocore logs header values as bytes.
    r"""['"]?\s*[:=,]\s*\(?(?:b(?=['"]))?['"]?)([^'"\n,)]+)""",
    re.IGNORECASE,
)
_KEY = re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{6,}")
# A SigV4 authorization value holds commas (``Credential=..., SignedHeaders=...,
# Signature=...``), where the header pattern stops: the whole value goes first.
_SIGV4 = re.compile(r"AWS4-HMAC-SHA256\s+Credential=[^'\"\n]*")
_BEARER = re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]+=*", re.IGNORECASE)

_installed: list[tuple[logging.Logger, logging.Filter]] = []
_levels: dict[str, int] = {}


def redact_log_text(text: str) -> str:
    """``text`` with credential query values, auth header values and keys replaced."""

    def query(match: re.Match[str]) -> str:
        if is_credential_param(match.group(2)) and match.group(3):
            return f"{match.group(1)}{match.group(2)}={REDACTED}"
        return match.group(0)

    text = _QUERY_PAIR.sub(query, text)
    text = _SIGV4.sub("AWS4-HMAC-SHA256 " + REDACTED, text)
    text = _HEADER.sub(lambda m: m.group(1) + REDACTED, text)
    text = _BEARER.sub("Bearer " + REDACTED, text)
    return _KEY.sub(REDACTED, text)


class _RedactingFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a malformed record: let logging report it as usual
            return True
        redacted = redact_log_text(message)
        if redacted != message:
            record.msg, record.args = redacted, None
        return True


# (number of names in logging's registry, the family loggers among them). Names
# are only ever added, so an unchanged count is an unchanged list; every cassette
# a test enters asks, and walking the registry (hundreds of loggers) each time
# was a millisecond a row.
_families: tuple[int, list[logging.Logger]] = (-1, [])


def _family_loggers() -> list[logging.Logger]:
    global _families
    registry = logging.root.manager.loggerDict
    if _families[0] != len(registry):
        names = [
            name
            for name in list(registry)
            if any(name == family or name.startswith(family + ".") for family in FAMILIES)
        ]
        found = [logging.getLogger(name) for name in sorted({*names, *FAMILIES})]
        _families = (len(registry), found)  # after getLogger, which may add names
    return _families[1]


def _install() -> None:
    for logger in _family_loggers():
        log_filter = _RedactingFilter()
        logger.addFilter(log_filter)
        _installed.append((logger, log_filter))
    for family in FAMILIES:
        logger = logging.getLogger(family)
        # Only a level that must change is set (and later put back): every setLevel
        # clears the cache of every logger in the process, hundreds of them.
        if logger.getEffectiveLevel() < logging.WARNING:
            _levels[family] = logger.level
            logger.setLevel(logging.WARNING)


def _uninstall() -> None:
    for logger, log_filter in _installed:
        logger.removeFilter(log_filter)
    _installed.clear()
    for family, level in _levels.items():
        logging.getLogger(family).setLevel(level)
    _levels.clear()


_patch = NestedPatch(_install, _uninstall)


@contextlib.contextmanager
def quiet_http_logs() -> Iterator[None]:
    """Redact and quiet the HTTP/SDK loggers inside the block."""
    with _patch.held():
        yield
