"""``harness cassettes check`` for MCP cassettes (``*.mcp.json``).

A file is readable when it validates as an MCP cassette; its strings and raw
text are scanned for secrets by the same detectors as model cassettes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from harness.core.errors import CassetteError
from harness.mcp._cassette import load_cassette
from harness.recording import Finding
from harness.recording.scrub import secret_findings

__all__ = ["MCP_SUFFIX", "check_mcp_cassette", "split_cassette_files"]

MCP_SUFFIX = ".mcp.json"


def split_cassette_files(
    paths: Iterable[str | os.PathLike[str]], suffixes: tuple[str, ...]
) -> tuple[list[Path], list[Path]]:
    """Files and folders expanded: ``(MCP cassettes, other cassette files)``."""
    mcp: list[Path] = []
    other: list[Path] = []
    for entry in paths:
        path = Path(entry)
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            files = [p for p in files if p.suffix.lower() in suffixes]
        else:
            files = [path]
        for file in files:
            (mcp if file.name.endswith(MCP_SUFFIX) else other).append(file)
    return mcp, other


def check_mcp_cassette(path: Path) -> list[Finding]:
    """Secrets in one MCP cassette, or one finding saying it cannot be read."""
    try:
        load_cassette(path)
        text = path.read_text("utf-8")
        data = json.loads(text)
    except (CassetteError, OSError, UnicodeDecodeError, ValueError) as exc:
        return [Finding(path, None, "(file)", "unreadable", str(exc).splitlines()[0])]
    return secret_findings(path, text, data)
