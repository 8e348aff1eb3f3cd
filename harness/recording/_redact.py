"""Credentials outside the auth headers: query parameters and body fields.

Header secrets are dropped by allow-list (:mod:`harness.recording._filters`).
A key can also travel as ``?key=...`` (Google-style APIs, signed URLs), as a
JSON field at any depth (``{"api_key": ...}`` in a tool payload, an OAuth token
response, ``{"auth": ...}``, an AWS ``SecretString``, a tool call's arguments
that are JSON inside a string), as a form field (``client_secret=...`` in an
``application/x-www-form-urlencoded`` body), as a ``multipart/form-data`` part
(``name="api_key"``) or in an event stream's ``data:`` lines. Those values are
replaced by :data:`REDACTED` in what is stored and in what is matched, so a
replay still finds a request whose live value differs. What no name marks (a
key quoted in a prompt, a token in a URL path) is refused by the shape scan
instead (:mod:`harness.recording._secrets`).

The name rules are written as words: a name is split at ``_``, ``-``, ``.``
and camelCase humps, then lower-cased. A query parameter (and a form field or
part) is a credential when any word is one of :data:`QUERY_WORDS`. A body
field is stricter, since bodies carry ordinary fields such as ``max_tokens``,
``input_tokens``, a thinking block's ``signature`` or a dict ``key``: its
*last* word must be one of :data:`FIELD_WORDS`, or any word one of
:data:`SECRET_WORDS` (``SecretString``, ``password_hash``), or it ends in
``key`` after ``api``/``access``/``secret``/``private``/``auth``/``client``.
A name ending in ``tokens`` (a usage count) never is one.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from harness.core.urls import strip_userinfo
from harness.recording._forms import is_form, redact_form, redact_multipart

__all__ = [
    "FIELD_WORDS",
    "QUERY_WORDS",
    "REDACTED",
    "SECRET_WORDS",
    "credential_names",
    "is_credential_field",
    "is_credential_param",
    "may_hold_credentials",
    "redact_body",
    "redact_json",
    "redact_query_pairs",
    "redact_text_body",
    "redact_uri",
    "words",
]

REDACTED: Final = "REDACTED"
QUERY_WORDS: Final = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "signature",
        "sig",
        "password",
        "passwd",
        "passphrase",
        "auth",
        "credential",
        "credentials",
    }
)
FIELD_WORDS: Final = frozenset(
    {
        "token",
        "apikey",
        "secret",
        "password",
        "passwd",
        "passphrase",
        "credential",
        "credentials",
        "authorization",
        "auth",
    }
)
# Words that make a field a credential wherever they stand in its name.
SECRET_WORDS: Final = frozenset(
    {"secret", "password", "passwd", "passphrase", "credential", "credentials", "apikey"}
)
_KEY_OWNERS: Final = frozenset({"api", "access", "secret", "private", "auth", "client"})
# Subtrees whose "token" fields are text pieces (OpenAI logprobs), never credentials.
_NOT_CREDENTIALS: Final = frozenset({"logprobs", "top_logprobs"})
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SEPARATORS = re.compile(r"[_\-.\s]+")
# Every name the rules above accept contains one of these (case aside); text
# without any is left alone unparsed. "token(?!s)": usage fields are plural.
_HINT = r"token(?!s)|secret|passw|passp|credential|auth|key"
_NAME_HINT = re.compile(_HINT, re.IGNORECASE)
_PLAIN_HINTS: Final = (b"key", b"secret", b"passw", b"passp", b"credential", b"auth")


def words(name: str) -> list[str]:
    """``name`` split into lower-case words (``apiKey`` -> ``["api", "key"]``)."""
    return [w.lower() for w in _SEPARATORS.split(_HUMP.sub("_", name)) if w]


# Field and parameter names repeat across every request of a run (role, content,
# type, ...): each name is split into words once, not once per occurrence.
@functools.lru_cache(maxsize=4096)
def is_credential_param(name: str) -> bool:
    """Whether a query parameter called ``name`` carries a credential."""
    return any(word in QUERY_WORDS for word in words(name))


@functools.lru_cache(maxsize=4096)
def is_credential_field(name: str) -> bool:
    """Whether a JSON body field called ``name`` carries a credential."""
    parts = words(name)
    if not parts or parts[-1] == "tokens":
        return False
    last = parts[-1]
    if last in FIELD_WORDS or not SECRET_WORDS.isdisjoint(parts):
        return True
    return last == "key" and len(parts) > 1 and parts[-2] in _KEY_OWNERS


def may_hold_credentials(text: str | bytes) -> bool:
    """False when ``text`` names no credential field at all (a cheap pre-check).

    It runs on every request body a cassette matches. The case-blind pattern
    took 185 us on a 1.8 KB body; lowering the text and looking for each hint
    takes 12 us and finds the same. Bytes are case-folded as ASCII by both.
    Text beyond ASCII keeps the pattern: its case rules fold a few other
    letters (the Kelvin sign is a "k").
    """
    if isinstance(text, str):
        if not text.isascii():
            return _NAME_HINT.search(text) is not None
        return _ascii_hint(text.lower().encode("ascii"))
    return _ascii_hint(text.lower())


def _ascii_hint(low: bytes) -> bool:
    if any(word in low for word in _PLAIN_HINTS):
        return True
    at = low.find(b"token")
    while at >= 0:  # "token", but not "tokens" (usage counts)
        if low[at + 5 : at + 6] != b"s":
            return True
        at = low.find(b"token", at + 5)
    return False


def redact_query_pairs(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Query pairs with every credential value replaced."""
    return [(k, REDACTED if v and is_credential_param(k) else v) for k, v in pairs]


def redact_uri(uri: str) -> str:
    """``uri`` without its login and with credential query values replaced.

    Unchanged when it has neither.
    """
    uri = strip_userinfo(uri)
    parts = urlsplit(uri)
    if not parts.query:
        return uri
    pairs = parse_qsl(parts.query, keep_blank_values=True)
    redacted = redact_query_pairs(pairs)
    if redacted == pairs:
        return uri
    return urlunsplit(parts._replace(query=urlencode(redacted, safe="/:")))


def redact_json(value: Any, found: list[str] | None = None) -> Any:
    """A JSON value with credential-named string fields replaced (the same object if none).

    A credential-named list has its strings replaced too, and a string that holds
    JSON naming a credential (a tool call's ``arguments``) is redacted inside.
    The names of the fields replaced are appended to ``found`` when given.
    """
    if isinstance(value, dict):
        changed: dict[str, Any] | None = None
        for key, item in value.items():
            if key in _NOT_CREDENTIALS:
                continue
            new = _redact_item(key, item, found)
            if new is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = new
        return value if changed is None else changed
    if isinstance(value, list):
        items = [_redact_item("", item, found) for item in value]
        return value if all(a is b for a, b in zip(items, value, strict=True)) else items
    return value


def _redact_item(key: str, item: Any, found: list[str] | None) -> Any:
    credential = bool(key) and is_credential_field(key)
    if isinstance(item, str):
        if credential and item and item != REDACTED:
            if found is not None:
                found.append(key)
            return REDACTED
        return _redact_embedded(item, found)
    if credential and isinstance(item, list):
        if found is not None and any(isinstance(x, str) and x and x != REDACTED for x in item):
            found.append(key)
        items = [REDACTED if isinstance(x, str) and x else redact_json(x, found) for x in item]
        return item if items == item else items
    return redact_json(item, found) if isinstance(item, (dict, list)) else item


def _redact_embedded(text: str, found: list[str] | None) -> str:
    """A string holding a JSON object that names a credential, redacted inside."""
    if text[:1] not in ("{", "[") or not may_hold_credentials(text):
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return text
    redacted = redact_json(data, found)
    return text if redacted is data else json.dumps(redacted, ensure_ascii=False)


def _redact_event_stream(text: str, found: list[str] | None) -> str:
    lines = text.split("\n")
    for position, line in enumerate(lines):
        if not line.startswith("data:") or not may_hold_credentials(line):
            continue
        try:
            data = json.loads(line[5:])
        except ValueError:
            continue
        redacted = redact_json(data, found)
        if redacted is not data:
            lines[position] = "data: " + json.dumps(redacted, ensure_ascii=False)
    return "\n".join(lines)


def redact_text_body(text: str, found: list[str] | None = None) -> str:
    """A stored text body with credential fields replaced (the same string if none).

    JSON, an event stream, a form (``a=1&client_secret=...``) and a multipart
    body are told apart by their shape, so the same rules hold where the
    content type is unknown (request matching).
    """
    if not may_hold_credentials(text):
        return text  # the common case: nothing named like a credential at all
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            data = json.loads(text)
        except ValueError:
            return text
        redacted = redact_json(data, found)
        return text if redacted is data else json.dumps(redacted, ensure_ascii=False)
    if is_form(text):
        return redact_form(text, is_credential_param, found, REDACTED)
    if text.startswith("--"):
        encoded = text.encode("utf-8", "surrogatepass")
        redacted = redact_multipart(encoded, is_credential_param, found, REDACTED)
        return text if redacted is encoded else redacted.decode("utf-8", "surrogatepass")
    return _redact_event_stream(text, found)


def redact_body(body: bytes | str, found: list[str] | None = None) -> bytes | str:
    """:func:`redact_text_body` for text and UTF-8 bytes (kept bytes); binary
    bodies have their multipart fields redacted."""
    if isinstance(body, str):
        return redact_text_body(body, found)
    if not may_hold_credentials(body):
        return body
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return redact_multipart(body, is_credential_param, found, REDACTED)
    redacted = redact_text_body(text, found)
    return body if redacted == text else redacted.encode("utf-8")


def credential_names(body: bytes | str) -> list[str]:
    """The credential-named fields of ``body`` that still hold a value."""
    found: list[str] = []
    redact_body(body, found)
    return found
