"""``harness cassettes check``: bodies that replay would fail to read, and bad layouts.

A body stored still compressed without its ``Content-Encoding`` header replays
as bytes the SDK cannot parse (a ``UnicodeDecodeError`` deep in the SDK); one
whose header names a coding harness cannot decode here would fail the same way
on a machine without the decoder. Both are reported as findings, as is any
interaction whose fields replay cannot use (see :mod:`harness.recording._layout`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from harness.core.errors import CassetteError
from harness.recording._encoding import DECODABLE, decode_body, encodings_of, looks_encoded
from harness.recording._format import check_header, check_interaction
from harness.recording._secrets import Finding, brief

__all__ = ["check_bodies"]


def _body_findings(path: Path, index: int, response: dict[str, Any]) -> Iterator[Finding]:
    body = response["body"]["string"]
    codings = encodings_of(response.get("headers") or {})
    field = "response.body"
    if not codings:
        if looks_encoded(body):
            yield Finding(path, index, field, "encoded body without Content-Encoding", "")
        return
    unknown = [c for c in codings if c not in DECODABLE]
    if unknown:
        what = f"Content-Encoding {', '.join(unknown)} that harness cannot decode here"
        yield Finding(path, index, field, what, "(install its decoder, or re-record)")
    elif isinstance(body, bytes) and decode_body(body, codings) is None:
        what = f"body does not decode as {', '.join(codings)}"
        yield Finding(path, index, field, what, "")
    elif isinstance(body, str) and body and codings != ["identity"]:
        what = f"text body under Content-Encoding {', '.join(codings)}"
        yield Finding(path, index, field, what, "(drop the header, or store the bytes)")


def check_bodies(path: Path, data: Any) -> list[Finding]:
    """Layout and content-encoding findings for a parsed cassette document."""
    try:
        check_header(path, data)
    except CassetteError as exc:
        return [Finding(path, None, "(file)", "malformed", brief(str(exc)))]
    findings: list[Finding] = []
    for index, item in enumerate(data["interactions"]):
        try:
            interaction = check_interaction(path, index, item)
        except CassetteError as exc:
            findings.append(Finding(path, index, "(layout)", "malformed", brief(str(exc))))
            continue
        findings.extend(_body_findings(path, index, interaction.response))
    return findings
