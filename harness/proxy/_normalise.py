"""``RequestNormaliser``: per-run values in a request body, replaced before matching and saving.

A process that runs as its own program fills its requests with values that
change on every run: a cache key, a session id, the ids of input items, the
date and the working folder written into the system prompt, the timing
header of a tool's output. Matching could skip a field, but not a date inside
a 4,000-character prompt, and a skipped field would still be saved with this
run's value, so two recordings of the same run would differ. The normaliser
rewrites the body the cassette sees instead (the upstream still gets the
original): each ignored field's value becomes a placeholder, and each text
rule (a regex and its placeholder) is applied to every string of the JSON
body, keys left alone. Matching and saving then see the same stable body, so
a re-recording of the same run is byte-identical and a replay matches.

A rule must be idempotent (its placeholder must not match it again in a way
that changes the text): a normalised body normalises to itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from harness.core.errors import ConfigurationError

__all__ = ["IGNORED", "RequestNormaliser", "TextRule"]

IGNORED = "<ignored>"
_WILDCARD = "*"


@dataclass(frozen=True, slots=True)
class TextRule:
    """Every match of ``pattern`` in a body's strings becomes ``placeholder``.

    ``placeholder`` may name groups as :func:`re.sub` does (``\\1``).
    """

    pattern: str
    placeholder: str

    def compiled(self) -> re.Pattern[str]:
        """The pattern, compiled; a bad one is a one-line ConfigurationError."""
        try:
            return re.compile(self.pattern)
        except re.error as exc:
            raise ConfigurationError(
                f"normaliser pattern {self.pattern!r} is not a valid regular expression: {exc}"
            ) from None


def _paths(fields: Iterable[str]) -> tuple[tuple[str, ...], ...]:
    paths = []
    for field in fields:
        parts = tuple(part for part in field.split(".") if part)
        if not parts:
            raise ConfigurationError(f"empty field path {field!r} among the ignored body fields")
        paths.append(parts)
    return tuple(paths)


def _replace(value: Any, path: Sequence[str]) -> Any:
    """``value`` with the field at ``path`` set to the placeholder (``*``: any key or item)."""
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        keys = list(value) if head == _WILDCARD else [head]
        result = dict(value)
        for key in keys:
            if key in result:
                result[key] = _replace(result[key], rest) if rest else IGNORED
        return result
    if isinstance(value, list):
        if head == _WILDCARD:
            indexes = range(len(value))
        elif head.isdigit() and int(head) < len(value):
            indexes = range(int(head), int(head) + 1)
        else:
            return value
        items = list(value)
        for index in indexes:
            items[index] = _replace(items[index], rest) if rest else IGNORED
        return items
    return value


class RequestNormaliser:
    """Rewrites the per-run values of a request body (see the module docstring).

    Args:
        ignore_fields: dotted body paths whose values become ``<ignored>``
            (``"prompt_cache_key"``, ``"input.*.id"``, ``"metadata.user_id"``).
        rules: text rules applied, in order, to every string of the body.
    """

    def __init__(self, ignore_fields: Iterable[str] = (), rules: Iterable[TextRule] = ()) -> None:
        self.ignore_fields = tuple(ignore_fields)
        self.rules = tuple(rules)
        self._paths = _paths(self.ignore_fields)
        self._compiled = tuple((rule.compiled(), rule.placeholder) for rule in self.rules)

    @property
    def active(self) -> bool:
        """Whether it can change anything at all."""
        return bool(self._paths or self._compiled)

    def text(self, value: str) -> str:
        """``value`` with every text rule applied."""
        for pattern, placeholder in self._compiled:
            value = pattern.sub(placeholder, value)
        return value

    def value(self, value: Any) -> Any:
        """A JSON value with ignored fields replaced and text rules applied to its strings."""
        for path in self._paths:
            value = _replace(value, path)
        return self._strings(value) if self._compiled else value

    def _strings(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self._strings(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self._strings(item) for item in value]
        return value

    def body(self, body: bytes) -> bytes:
        """A request body normalised; the same bytes when it is not JSON or nothing changed."""
        if not self.active or not body:
            return body
        try:
            value = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return body
        normalised = self.value(value)
        if normalised == value:
            return body
        return json.dumps(normalised, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
