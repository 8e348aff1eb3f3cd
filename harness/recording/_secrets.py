"""Secret scan: find key-like strings in cassette data before it reaches disk.

Auth headers are dropped at record time; this scan is the second line, for keys
that travel in bodies (a prompt quoting a ``.env`` file, a tool result...). Besides
known key shapes it flags any long high-entropy value written right after a
credential-like name (``api_key=...``, ``"client_secret": "..."``), and it reads
compressed (gzip, deflate, zstd) binary bodies after decoding them.
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
from harness.recording._encoding import decode_body

__all__ = ["Finding", "brief", "high_entropy", "scan_data"]

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("api key (sk-...)", re.compile(r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9_-]{10,}")),
    ("bearer token", re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{8,}=*", re.IGNORECASE)),
    # AKIA: a long-term key; ASIA: a temporary (STS) one, the usual Bedrock credential.
    ("AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    # A base URL's login (``http://user:password@host``); "[REDACTED]@" is already clean.
    (
        "login in a URL (user:password@)",
        re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://(?!\[REDACTED\]@)[^/?#@\s\"'<>]+@"),
    ),
)
# "token" must not be followed by "s" (max_tokens); a thinking block's "signature"
# is high-entropy but no credential, so it is not a name here.
_CREDENTIAL_NAME = (
    r"(?:(?<![A-Za-z0-9])(?:api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key"
    r"|client[_-]?secret|password|passwd|access[_-]?token|refresh[_-]?token|auth[_-]?token"
    r"|id[_-]?token|x-api-key)"
    # Bare words only as a whole name: "key=", not "idempotency_key" or "cache-key".
    r"|(?<![A-Za-z0-9_-])(?:token|key|secret))"
)
_NAMED_VALUE = re.compile(
    _CREDENTIAL_NAME + r"""["']?\s*[:=]\s*["']?(?P<value>[A-Za-z0-9_\-./+~]{16,}={0,2})""",
    re.IGNORECASE,
)
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


def _patterns() -> list[tuple[str, re.Pattern[str]]]:
    patterns = list(_PATTERNS)
    for name in _ENV_KEYS:
        value = os.environ.get(name, "")
        if len(value) >= _MIN_ENV_SECRET:
            patterns.append((f"value of ${name}", re.compile(re.escape(value))))
    return patterns


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
    path: Path, interaction: int | None, value: Any, prefix: str, patterns: list[Any]
) -> Iterator[Finding]:
    for field, text in _strings(value, prefix):
        for kind, pattern in patterns:
            for match in pattern.finditer(text):
                yield Finding(path, interaction, field, kind, _redact(match.group(0)))
        if field.endswith(_HOSTS_FIELD) and "@" in text:
            # Hosts without a scheme: "user:password@127.0.0.1:8080".
            yield Finding(path, interaction, field, "login in a host (user@)", "")
        for match in _NAMED_VALUE.finditer(text):
            value = match.group("value")
            if high_entropy(value) and not value.startswith("sk-"):  # sk- is reported above
                kind = "high-entropy value after a credential name"
                yield Finding(path, interaction, field, kind, _redact(value))


def scan_data(path: Path, data: Any) -> list[Finding]:
    """Findings in a loaded cassette document (a vcrpy ``dict`` with ``interactions``)."""
    patterns = _patterns()
    if not isinstance(data, Mapping):
        return list(_scan_value(path, None, data, "", patterns))
    findings: list[Finding] = []
    for key, value in data.items():
        if key == "interactions" and isinstance(value, list):
            for index, interaction in enumerate(value):
                findings.extend(_scan_value(path, index, interaction, "", patterns))
        else:
            findings.extend(_scan_value(path, None, value, str(key), patterns))
    return findings
