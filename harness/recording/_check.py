"""``harness cassettes check``: scan cassette files for key-like strings, bodies that
cannot replay, and malformed interactions.

Secrets are looked for twice: in the parsed document (so a finding names its
interaction and field, and compressed bodies are read decoded) and in the raw
text (so a key in a YAML comment, which no parser returns, is found too). A raw
finding the parsed scan already made is not repeated.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from harness.core.errors import CassetteError
from harness.recording._bodycheck import check_bodies
from harness.recording._format import parse_document
from harness.recording._secrets import Finding, brief, scan_data, scan_text

__all__ = ["CASSETTE_SUFFIXES", "check_cassettes", "scan_cassette_file"]

CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")


def scan_cassette_file(path: str | os.PathLike[str]) -> list[Finding]:
    """Key-like strings, undecodable bodies and malformed interactions in one cassette.

    An unreadable file (corrupt, an alias bomb, not UTF-8) is one finding too.
    """
    file = Path(path)
    try:
        text = file.read_text(encoding="utf-8")
        data = parse_document(file, text)
    except (OSError, UnicodeDecodeError, CassetteError) as exc:
        return [Finding(file, None, "(file)", "unreadable", brief(str(exc)))]
    found = scan_data(file, data)
    known = {(finding.kind, finding.excerpt) for finding in found}
    raw = [f for f in scan_text(file, text) if (f.kind, f.excerpt) not in known]
    return found + raw + check_bodies(file, data)


def _expand(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    files: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            files.extend(
                sorted(
                    p
                    for p in path.rglob("*")
                    if p.is_file() and p.suffix.lower() in CASSETTE_SUFFIXES
                )
            )
        else:
            files.append(path)
    return files


def check_cassettes(paths: Iterable[str | os.PathLike[str]]) -> list[Finding]:
    """Scan files and directories (recursively: ``*.yaml``, ``*.yml``, ``*.json``).

    Returns:
        Every finding, in file order; empty when all cassettes are clean.
    """
    findings: list[Finding] = []
    for file in _expand(paths):
        findings.extend(scan_cassette_file(file))
    return findings
