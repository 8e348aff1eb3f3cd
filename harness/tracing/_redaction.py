"""Keep secrets and bulk out of trace payloads.

Used by ``Tracer.set_payload`` in replay mode, and wherever a text is named in a
trace without being stored:

- :func:`redact` replaces the values of secret-looking keys (``token``,
  ``secret``, ``password``, ``passwd``, ``authorization``, ``api_key`` /
  ``api-key`` / ``apikey``, ``cookie``; case-insensitive substring) with
  ``"[REDACTED]"``, and scrubs key-like strings (``sk-...``, ``sk-ant-...``,
  ``Bearer ...``, ``AKIA...``, GitHub and Slack tokens) inside any text.
  Numbers and booleans under such keys are kept, so usage counts like
  ``input_tokens`` survive.
- :func:`truncate` shortens long strings to a limit with a visible marker.
- :func:`hash_text` gives a short stable digest to compare texts without storing them;
  :func:`text_digest` the full, prefixed one (``sha256:...``) for prompts and answers.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any, Final

from pydantic import BaseModel

from harness.core.urls import redact_userinfo

__all__ = [
    "REDACTED",
    "SECRET_KEY_PARTS",
    "hash_text",
    "is_secret_key",
    "redact",
    "redact_text",
    "text_digest",
    "truncate",
]

REDACTED: Final = "[REDACTED]"

SECRET_KEY_PARTS: Final[tuple[str, ...]] = (
    "token",
    "secret",
    "password",
    "passwd",
    "authorization",
    "api_key",
    "api-key",
    "apikey",
    "cookie",
    "x-api-key",
)

_SECRET_TEXT: Final[tuple[tuple[re.Pattern[str], str], ...]] = (
    (re.compile(r"\bBearer\s+[A-Za-z0-9._~+/=-]{8,}"), f"Bearer {REDACTED}"),
    (re.compile(r"\bsk-ant-[A-Za-z0-9_-]{8,}"), REDACTED),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{12,}"), REDACTED),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), REDACTED),
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), REDACTED),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), REDACTED),
)


def hash_text(text: str) -> str:
    """Return the first 16 hex digits of the SHA-256 of ``text`` (UTF-8)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def text_digest(text: str) -> str:
    """Return ``"sha256:"`` and the 64 hex digits of the SHA-256 of ``text`` (UTF-8).

    The algorithm is named so a reader can recompute it; the full digest (not the
    16 digits of ``hash_text``) because users match it against their own records.
    """
    return "sha256:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def is_secret_key(key: str) -> bool:
    """True when a mapping key names a credential (case-insensitive substring match)."""
    lowered = key.lower()
    return any(part in lowered for part in SECRET_KEY_PARTS)


def redact_text(text: str) -> str:
    """Replace key-like substrings (API keys, bearer tokens, AWS ids, URL logins) in ``text``."""
    for pattern, replacement in _SECRET_TEXT:
        text = pattern.sub(replacement, text)
    return redact_userinfo(text)


def truncate(value: Any, max_chars: int) -> Any:
    """Shorten every string in ``value`` (recursively) to ``max_chars`` plus a marker.

    The marker reads ``...[truncated N chars]`` where N counts the dropped characters.
    """
    if isinstance(value, str):
        if len(value) <= max_chars:
            return value
        return f"{value[:max_chars]}...[truncated {len(value) - max_chars} chars]"
    if isinstance(value, Mapping):
        return {str(k): truncate(v, max_chars) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [truncate(v, max_chars) for v in value]
    return value


def redact(value: Any) -> Any:
    """Return a JSON-compatible copy of ``value`` with secrets removed.

    Mappings, lists and tuples are walked; pydantic models are dumped first;
    other objects become their ``str``. The input is never modified.
    """
    if isinstance(value, str):
        return redact_text(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, BaseModel):
        return redact(value.model_dump(mode="json"))
    if isinstance(value, Mapping):
        return {str(k): _redact_item(str(k), v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(v) for v in value]
    return redact_text(str(value))


def _redact_item(key: str, value: Any) -> Any:
    if is_secret_key(key) and not (value is None or isinstance(value, bool | int | float)):
        return REDACTED
    return redact(value)
