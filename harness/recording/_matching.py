"""Request matching: a hashable key from method, path, query and normalized JSON body.

Replay looks the key up in a dict, so the cost of a request does not grow with
the number of stored interactions. Bodies are compared as JSON values: key order
never matters, and fields the caller names as volatile (``metadata``, ``user``,
``messages.*.id``...) are removed before comparing. The query is compared as
sorted pairs, without the parameters the caller names (``beta``,
``api-version``...). The bodies of a wire the registry marks proto-JSON
(``Wire.proto_json``) are compared with every key in lowerCamelCase: proto-JSON
takes ``function_call`` and ``functionCall`` alike and SDK versions send either,
so a recording replays for both (google-genai's own replay client compares the
same way). Credentials
(query parameters and body fields named like one, see
:mod:`harness.recording._redact`) are compared as redacted, since the file only
ever holds them redacted.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple
from urllib.parse import parse_qsl, urlsplit

from harness.core.wires import is_proto_json_call
from harness.recording._redact import (
    may_hold_credentials,
    redact_body,
    redact_json,
    redact_query_pairs,
)

__all__ = ["BodyNormalizer", "MatchKey", "canonical_json", "normalize_body", "parse_match_line"]

_WILDCARD = "*"
_DIGEST_CHARS = 24
_SNAKE_PIECE = re.compile(r"_([a-z0-9])")
_MATCH_LINE = re.compile(rf"(\S+) (\S+) ([0-9a-f]{{{_DIGEST_CHARS}}})")


class MatchKey(NamedTuple):
    """What two requests must share to be the same interaction."""

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    body: str

    @classmethod
    def build(
        cls, method: str, uri: str, body: str, ignore_query: frozenset[str] = frozenset()
    ) -> MatchKey:
        """Key for ``method uri`` with an already canonical ``body``."""
        parts = urlsplit(uri)
        pairs = parse_qsl(parts.query, keep_blank_values=True) if parts.query else []
        if ignore_query:
            pairs = [(k, v) for k, v in pairs if k.lower() not in ignore_query]
        query = tuple(sorted(redact_query_pairs(pairs)))
        return cls(method.upper(), parts.path or "/", query, body)

    @property
    def digest(self) -> str:
        """A short hash of the whole key: what the replay index is keyed by."""
        data = canonical_json([self.method, self.path, self.query, self.body]).encode()
        return hashlib.blake2b(data, digest_size=_DIGEST_CHARS // 2).hexdigest()

    @property
    def target(self) -> str:
        """``path?query`` as a request line shows it."""
        if not self.query:
            return self.path
        return self.path + "?" + "&".join(f"{k}={v}" for k, v in self.query)


def parse_match_line(line: object) -> tuple[str, str] | None:
    """``("METHOD /target", digest)`` from a stored match line, or None if malformed."""
    found = _MATCH_LINE.fullmatch(line) if isinstance(line, str) else None
    if found is None:
        return None
    return f"{found.group(1)} {found.group(2)}", found.group(3)


def canonical_json(value: Any) -> str:
    """Serialize ``value`` so that equal JSON values give equal strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _parse_paths(fields: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    paths = []
    for field in fields:
        parts = tuple(part for part in field.split(".") if part)
        if not parts:
            raise ValueError(f"empty field path {field!r} in ignore_body_fields")
        paths.append(parts)
    return tuple(paths)


def _drop(value: Any, path: Sequence[str]) -> Any:
    """Return ``value`` without the field at ``path`` (copying only what changes)."""
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        keys = list(value) if head == _WILDCARD else [head]
        if not any(key in value for key in keys):
            return value
        result = dict(value)
        for key in keys:
            if key not in result:
                continue
            if rest:
                result[key] = _drop(result[key], rest)
            else:
                del result[key]
        return result
    if isinstance(value, list) and rest:
        if head == _WILDCARD:
            return [_drop(item, rest) for item in value]
        if head.isdigit() and int(head) < len(value):
            index = int(head)
            return [*value[:index], _drop(value[index], rest), *value[index + 1 :]]
    return value


class BodyNormalizer:
    """Turns a request body into the value and the string that matching compares.

    Args:
        ignore_fields: dotted paths to remove from JSON bodies before comparing,
            e.g. ``"metadata"``, ``"stream_options.include_usage"``,
            ``"messages.*.id"`` (``*`` is any key or any list item).
        ignore_query_params: query parameter names left out of the key
            (case-insensitive), e.g. ``("beta", "api-version")``.
    """

    def __init__(
        self, ignore_fields: Iterable[str] = (), ignore_query_params: Iterable[str] = ()
    ) -> None:
        self.ignore_fields = tuple(ignore_fields)
        self.ignore_query_params = tuple(ignore_query_params)
        self._ignored_query = frozenset(name.lower() for name in self.ignore_query_params)
        self._paths = _parse_paths(self.ignore_fields)

    def value(self, body: bytes | str | None) -> Any:
        """The body as a JSON value with volatile fields removed (text if not JSON)."""
        if body is None or body in (b"", ""):
            return None
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            # A form or multipart body: matched as stored, its credential fields redacted.
            text = redact_body(body)
            return text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
        for path in self._paths:
            value = _drop(value, path)
        return redact_json(value) if may_hold_credentials(body) else value

    def key(self, method: str, uri: str, body: bytes | str | None) -> MatchKey:
        """The match key of one request."""
        value = self.value(body)
        if is_proto_json_call(urlsplit(uri).path):
            value = _camel_keys(value)
        return MatchKey.build(method, uri, canonical_json(value), self._ignored_query)


def _camel_keys(value: Any) -> Any:
    """``value`` with every object key in lowerCamelCase (``parameters_json_schema``
    -> ``parametersJsonSchema``); a key that already is one is left alone."""
    if isinstance(value, dict):
        return {
            _SNAKE_PIECE.sub(lambda m: m.group(1).upper(), k) if isinstance(k, str) else k: (
                _camel_keys(v)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_camel_keys(item) for item in value]
    return value


def normalize_body(body: bytes | str | None, ignore_fields: Iterable[str] = ()) -> str:
    """Canonical form of a request body as matching compares it.

    Two bodies match exactly when their normalized forms are equal: JSON key
    order and the ``ignore_fields`` never make a difference.
    """
    return canonical_json(BodyNormalizer(ignore_fields).value(body))
