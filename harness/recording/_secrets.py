"""Secret scan: find key-like strings in cassette data before it reaches disk.

Auth headers are dropped at record time and credential-named fields redacted
(:mod:`harness.recording._redact`); this scan is the second line, for keys that
travel where no name marks them (a prompt quoting a ``.env`` file, a tool
result, a URL path...). It reports:

- key shapes: detect-secrets' vendor rules and harness's own
  (:mod:`harness.recording._detectors`), in every string, decoded when
  compressed (gzip, deflate, zstd);
- a long high-entropy value right after a credential-like name, in any syntax
  (``HF_TOKEN=...``, ``"client_secret": "..."``, ``auth: ...``);
- the value of ``$OPENAI_API_KEY`` / ``$ANTHROPIC_API_KEY`` wherever it appears;
- what the recorder would have redacted but a file still holds: a credential
  field of a JSON, form, multipart or event-stream body, a credential query
  parameter, a credential header (a cassette written by another tool).

``harness cassettes check`` also scans the file's raw text (:func:`scan_text`),
so a key in a YAML comment, which no parser returns, is found too.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.wires import credential_env_names
from harness.recording._detectors import find_shapes
from harness.recording._encoding import decode_body
from harness.recording._redact import (
    credential_names,
    is_credential_field,
    is_credential_param,
    may_hold_credentials,
    redact_uri,
    words,
)

__all__ = ["Finding", "brief", "high_entropy", "scan_data", "scan_text", "text_secrets"]

# A name (a JSON key, an env variable, a form field, a YAML key) and the value
# assigned to it. The name is taken whole (possessive), so "idempotency_key" is
# judged as that name, never as its tail "key".
_NAMED_VALUE = re.compile(
    r"(?<![A-Za-z0-9_.-])(?P<name>[A-Za-z_][A-Za-z0-9_.-]{0,63}+)"
    r"""["']?\s*[:=]\s*["']?(?P<value>[A-Za-z0-9_\-./+~]{16,}={0,2})"""
)
_SECRET_HEADERS = frozenset({"cookie", "set-cookie", "authorization", "proxy-authorization"})
# What vcrpy's and other recorders' filters leave in a header: no secret.
_PLACEHOLDER = re.compile(r"|.*(?:redacted|filtered|scrubbed|removed|xxx|\*\*\*).*", re.I)
_MIN_ENTROPY = 3.5  # bits per character; English words and ids stay below
_ENV_KEYS = credential_env_names()
_MIN_ENV_SECRET = 8  # shorter env values would flag ordinary words
_HOSTS_FIELD = "recorded_against"
_BRIEF_CHARS = 300
_MORE = " [...]"
# How a finding about a whole file reads (its ``kind`` stays the short name).
_FILE_LABELS = {"unreadable": "cannot be read", "malformed": "not replayable"}
# ``field`` values that say "no particular field": not worth printing.
_NO_FIELD = ("(file)", "(layout)")


def brief(text: str, width: int = _BRIEF_CHARS) -> str:
    """``text`` on one line, at most ``width`` characters, cut between words.

    A cut text ends with `` [...]``; only a single word longer than the line is cut
    inside (a long path is still worth its start).
    """
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    room = max(width - len(_MORE), 1)
    head = flat[: room + 1]  # one character more: a space there is a word boundary
    head = head[: head.rindex(" ")] if " " in head else flat[:room]
    return head + _MORE


@dataclass(frozen=True)
class Finding:
    """One key-like string found in a cassette (the value itself is never kept).

    Attributes:
        path: the cassette file (or the one about to be written).
        interaction: 0-based interaction index, or None outside ``interactions``.
        field: where in the interaction, e.g. ``request.body``.
        kind: what was found, e.g. ``api key (sk-...)``, or ``unreadable``.
        excerpt: a redacted hint such as ``sk-tes… (17 chars)``.
    """

    path: Path
    interaction: int | None
    field: str
    kind: str
    excerpt: str

    def __str__(self) -> str:
        # A parenthesised excerpt is advice ("(re-record)"); anything else is what was found.
        excerpt = self.excerpt
        detail = f" {excerpt}" if excerpt.startswith("(") else f": {excerpt}" if excerpt else ""
        if self.interaction is None and self.field in _NO_FIELD:
            return f"{self.path}: {_FILE_LABELS.get(self.kind, self.kind)}{detail}"
        where = "file" if self.interaction is None else f"interaction {self.interaction}"
        if self.field not in _NO_FIELD:
            where += f", {self.field}"
        return f"{self.path}: {where}: {self.kind}{detail}"


def high_entropy(value: str) -> bool:
    """Whether ``value`` looks random: letters and digits, Shannon entropy >= 3.5 bits."""
    if not (any(c.isdigit() for c in value) and any(c.isalpha() for c in value)):
        return False
    counts = [value.count(c) for c in set(value)]
    entropy = -sum(n / len(value) * math.log2(n / len(value)) for n in counts)
    return entropy >= _MIN_ENTROPY


def _redact(secret: str) -> str:
    return f"{secret[:6]}… ({len(secret)} chars)"


def _env_values() -> list[tuple[str, str]]:
    values = []
    for name in _ENV_KEYS:
        value = os.environ.get(name, "")
        if len(value) >= _MIN_ENV_SECRET:
            values.append((f"value of ${name}", value))
    return values


def _credential_name(name: str) -> bool:
    # Bare "key" too (``?key=AIza...``); "signature" stays out (thinking blocks).
    return is_credential_field(name) or words(name) == ["key"]


def _text_secrets(text: str, env: list[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """``(kind, secret)`` for every secret in one string."""
    yield from find_shapes(text)
    for kind, value in env:
        if value in text:
            yield kind, value
    if not may_hold_credentials(text):
        return
    for match in _NAMED_VALUE.finditer(text):
        value = match.group("value")
        if value.startswith("sk-") or not _credential_name(match.group("name")):
            continue  # sk- is reported above
        if high_entropy(value):
            yield "high-entropy value after a credential name", value


def _strings(value: Any, field: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield field, value
    elif isinstance(value, bytes):
        yield field, _decoded(value).decode("utf-8", errors="replace")
    elif isinstance(value, Mapping):
        for key, item in value.items():
            yield from _strings(str(key), f"{field}.<key>" if field else "<key>")
            yield from _strings(item, f"{field}.{key}" if field else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from _strings(item, f"{field}[{index}]")


_COMPRESSED = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"), (b"\x78", "deflate"))


def _decoded(body: bytes) -> bytes:
    """A compressed body decoded (it is scanned as the reader of the file would see it)."""
    for magic, coding in _COMPRESSED:
        if body.startswith(magic):
            decoded = decode_body(body, [coding])
            if decoded is not None:
                return decoded
    return body


def _scan_value(
    path: Path, interaction: int | None, value: Any, prefix: str, env: list[tuple[str, str]]
) -> Iterator[Finding]:
    for field, text in _strings(value, prefix):
        for kind, secret in _text_secrets(text, env):
            yield Finding(path, interaction, field, kind, _redact(secret))
        if field.endswith(_HOSTS_FIELD) and "@" in text:
            # Hosts without a scheme: "user:password@127.0.0.1:8080".
            yield Finding(path, interaction, field, "login in a host (user@)", "")


def _kept_credentials(path: Path, index: int, interaction: Any) -> Iterator[Finding]:
    """What the recorder redacts but this interaction still holds."""
    if not isinstance(interaction, Mapping):
        return
    for side in ("request", "response"):
        part = interaction.get(side)
        if not isinstance(part, Mapping):
            continue
        uri = part.get("uri")
        if isinstance(uri, str) and redact_uri(uri) != uri:
            yield Finding(path, index, f"{side}.uri", "credential in the URL", "(re-record)")
        headers = part.get("headers")
        if isinstance(headers, Mapping):
            for name, values in headers.items():
                if _secret_header(str(name)) and not _placeholders(values):
                    where = f"{side}.headers.{name}"
                    yield Finding(path, index, where, "credential header kept", "(re-record)")
        body = part.get("body")
        if isinstance(body, Mapping):  # a response's body is {"string": ...}
            body, field = body.get("string"), f"{side}.body.string"
        else:
            field = f"{side}.body"
        if isinstance(body, bytes):
            body = _decoded(body)
        if isinstance(body, (str, bytes)) and body:
            for name in dict.fromkeys(credential_names(body)):
                kind = f"credential field {name!r} not redacted"
                yield Finding(path, index, field, kind, "(re-record)")


def _placeholders(values: Any) -> bool:
    """Whether a header holds only what another tool's filter left (``<filtered>``)."""
    listed = values if isinstance(values, list) else [values]
    return all(isinstance(v, str) and _PLACEHOLDER.fullmatch(v.strip()) for v in listed)


def _secret_header(name: str) -> bool:
    lowered = name.lower()
    return lowered in _SECRET_HEADERS or is_credential_param(lowered)


def scan_data(path: Path, data: Any) -> list[Finding]:
    """Findings in a loaded cassette document (a vcrpy ``dict`` with ``interactions``)."""
    env = _env_values()
    if not isinstance(data, Mapping):
        return list(_scan_value(path, None, data, "", env))
    findings: list[Finding] = []
    for key, value in data.items():
        if key == "interactions" and isinstance(value, list):
            for index, interaction in enumerate(value):
                found = list(_scan_value(path, index, interaction, "", env))
                fields = {finding.field for finding in found}
                # A header already reported for the key in it is not reported twice.
                kept = _kept_credentials(path, index, interaction)
                findings.extend(found)
                findings.extend(f for f in kept if not any(x.startswith(f.field) for x in fields))
        else:
            findings.extend(_scan_value(path, None, value, str(key), env))
    return findings


def scan_text(path: Path, text: str) -> list[Finding]:
    """Findings in a file's raw text, comments and all, each at its ``line N``.

    The text is scanned whole (a scan per line cost 20x more in call overhead),
    then each secret is placed at the line it first occurs on.
    """
    findings: list[Finding] = []
    for kind, secret in _text_secrets(text, _env_values()):
        line = text.count("\n", 0, max(text.find(secret), 0)) + 1
        findings.append(Finding(path, None, f"line {line}", kind, _redact(secret)))
    return findings


def text_secrets(text: str) -> list[tuple[str, str]]:
    """``(kind, secret)`` for every secret the check would find in one string."""
    return list(_text_secrets(text, _env_values()))
