"""Scrub secrets out of a JSON value before it is stored (MCP cassettes, tool payloads).

Model cassettes refuse a key-shaped string in a body (``harness cassettes check``
names it); a tool result is different: a server may hand back a token the agent
legitimately read, and the recording must still be made. So the same detectors
(credential-named fields, key shapes, detect-secrets' rules, the values of the
credential variables set in this environment) find it, and the string is
replaced where it stands by :data:`SCRUBBED`, which the check reads as a placeholder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from harness.recording._redact import redact_json
from harness.recording._secrets import Finding, scan_data, scan_text, text_secrets

__all__ = ["SCRUBBED", "scrub_json", "secret_findings"]

SCRUBBED: Final = "<scrubbed>"


def scrub_json(value: Any, found: list[str] | None = None) -> Any:
    """``value`` with every secret replaced by :data:`SCRUBBED` (kinds added to ``found``).

    Returns the same object when nothing was found. Idempotent: a scrubbed value
    scrubs to itself, so a request scrubbed when recorded matches the live one
    scrubbed when replayed.
    """
    return _scrub(redact_json(value, found), found)


def _scrub(value: Any, found: list[str] | None) -> Any:
    if isinstance(value, str):
        text = value
        for kind, secret in text_secrets(value):
            if secret and secret in text:
                text = text.replace(secret, SCRUBBED)
                if found is not None:
                    found.append(kind)
        return text if text != value else value
    if isinstance(value, dict):
        items = {key: _scrub(item, found) for key, item in value.items()}
        same = all(items[key] is value[key] for key in value)
        return value if same else items
    if isinstance(value, list):
        listed = [_scrub(item, found) for item in value]
        return value if all(a is b for a, b in zip(listed, value, strict=True)) else listed
    return value


def secret_findings(path: Path, text: str, data: Any) -> list[Finding]:
    """What ``harness cassettes check`` finds in a stored document of another format
    (``data`` parsed from ``text``): its strings first, then its raw text."""
    found = scan_data(path, data)
    known = {(finding.kind, finding.excerpt) for finding in found}
    return found + [f for f in scan_text(path, text) if (f.kind, f.excerpt) not in known]
