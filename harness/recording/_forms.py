"""Form and multipart bodies: their credential fields replaced, everything else kept.

An ``application/x-www-form-urlencoded`` body (an OAuth token request:
``grant_type=...&client_secret=...``) and a ``multipart/form-data`` body (an
upload with an ``api_key`` part) carry credentials by field name, as a query
string does. Only the value of a field the caller's rule names is replaced; the
other bytes stay exactly as sent, so a body without one is returned unchanged
(the same object) and a re-recorded cassette stays byte-identical.

Both shapes are recognised without a content type, since request matching sees
only the body: a form is one line of ``name=value`` pairs joined by ``&``; a
multipart body starts with its ``--boundary`` line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final
from urllib.parse import unquote_plus

__all__ = ["is_form", "redact_form", "redact_multipart"]

_FORM: Final = re.compile(r"[\w.%+*~\[\]-]+=[^&\s]*(?:&[\w.%+*~\[\]-]+=[^&\s]*)*")
_PAIR: Final = re.compile(r"(?:(?<=&)|^)(?P<name>[^=&]+)=(?P<value>[^&]*)")
_PART_NAME: Final = re.compile(rb'content-disposition:[^\r\n]*?\bname="([^"]*)"', re.IGNORECASE)
_MAX_BOUNDARY: Final = 80  # RFC 2046 allows 70 characters; a longer first line is no boundary

Rule = Callable[[str], bool]


def is_form(text: str) -> bool:
    """Whether ``text`` reads as a URL-encoded form (``a=1&b=2``, no spaces)."""
    return "=" in text and _FORM.fullmatch(text) is not None


def redact_form(text: str, is_credential: Rule, found: list[str] | None, redacted: str) -> str:
    """``text`` (a form) with each credential field's value replaced by ``redacted``."""

    def replace(match: re.Match[str]) -> str:
        name, value = match.group("name"), match.group("value")
        decoded = unquote_plus(name)
        if not value or value == redacted or not is_credential(decoded):
            return match.group(0)
        if found is not None:
            found.append(decoded)
        return f"{name}={redacted}"

    return _PAIR.sub(replace, text)


def redact_multipart(
    body: bytes, is_credential: Rule, found: list[str] | None, redacted: str
) -> bytes:
    """``body`` (multipart) with each credential part's content replaced by ``redacted``."""
    first = body.split(b"\n", 1)[0].rstrip(b"\r")
    if len(first) < 3 or len(first) > _MAX_BOUNDARY or not first.startswith(b"--"):
        return body
    pieces = body.split(first)
    marker = redacted.encode("ascii")
    changed = False
    for index, piece in enumerate(pieces[1:], start=1):
        cut = piece.find(b"\r\n\r\n")
        gap = 4
        if cut < 0:
            cut, gap = piece.find(b"\n\n"), 2
        if cut < 0:
            continue
        named = _PART_NAME.search(piece[:cut])
        if named is None or not is_credential(named.group(1).decode("latin-1")):
            continue
        content = piece[cut + gap :]
        ending = b"\r\n" if content.endswith(b"\r\n") else b"\n" if content.endswith(b"\n") else b""
        value = content[: len(content) - len(ending)]
        if not value or value == marker:
            continue
        if found is not None:
            found.append(named.group(1).decode("latin-1"))
        pieces[index] = piece[: cut + gap] + marker + ending
        changed = True
    return first.join(pieces) if changed else body
