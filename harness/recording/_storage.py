"""Loading and saving cassette files: fast, validated, atomic, and secret-free.

Loading a YAML cassette that harness wrote only parses its header; the
interactions are split off as text (see :mod:`harness.recording._entries`).
Saving runs the secret scan first and writes a temporary file that is renamed
over the cassette, so a failed save never leaves half a cassette behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from harness.core.errors import CassetteError
from harness.recording._entries import CassetteEntries, split_items, stamp_checksums
from harness.recording._fastyaml import read_block_document
from harness.recording._format import (
    FORMAT_VERSION,
    MATCH_KEY,
    Interaction,
    check_header,
    check_interaction,
    dump_document,
    is_json,
    parse_document,
)
from harness.recording._metadata import METADATA_KEY, CassetteMetadata
from harness.recording._secrets import scan_data

__all__ = ["LoadedCassette", "load_cassette", "save_cassette"]

_UNSTAMPED = " " + "0" * 16


class LoadedCassette(NamedTuple):
    """What :func:`load_cassette` read from a file."""

    entries: CassetteEntries
    metadata: CassetteMetadata | None


def _fast_load(path: Path, text: str) -> LoadedCassette | None:
    split = None if is_json(path) else split_items(text)
    if split is None:
        return None
    header_text, items = split
    header = header_text + "interactions: []\n"
    # The header is in the subset harness writes: read like an item (200 us -> 44 us).
    data = read_block_document(header)
    metadata = check_header(path, parse_document(path, header) if data is None else data)
    if metadata is None or metadata.interaction_count != len(items):
        return None  # not (or no longer) laid out as harness wrote it
    return LoadedCassette(CassetteEntries(path, items=items), metadata)


def load_cassette(path: Path) -> LoadedCassette | None:
    """Read and validate a cassette; None when the file is missing or blank.

    Raises:
        CassetteError: the file is corrupt, of a foreign format, or its
            ``harness:`` block does not validate.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"cannot read cassette {path}: {exc}") from exc
    if not text.strip():
        return None  # as vcrpy does: an empty file is a cassette still to record
    fast = _fast_load(path, text)
    if fast is not None:
        return fast
    data = parse_document(path, text)
    metadata = check_header(path, data)
    parsed = [check_interaction(path, i, item) for i, item in enumerate(data["interactions"])]
    return LoadedCassette(CassetteEntries(path, parsed=parsed), metadata)


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def save_cassette(
    path: Path, interactions: Sequence[Interaction], metadata: CassetteMetadata
) -> CassetteMetadata:
    """Write a cassette after a secret scan, atomically; return the block as written.

    Raises:
        CassetteError: a key-like string is in the data (nothing is written).
    """
    unstamped = "" if is_json(path) else _UNSTAMPED  # YAML match lines get a checksum
    items = [
        {MATCH_KEY: f"{i.match}{unstamped}", "request": i.request, "response": i.response}
        if i.match
        else {"request": i.request, "response": i.response}
        for i in interactions
    ]
    counted = metadata.model_copy(update={"interaction_count": len(items)})
    # Written only when set: files recorded without it stay byte-identical to before.
    unset = None if counted.ignore_query_params else {"ignore_query_params"}
    data: dict[str, Any] = {
        "version": FORMAT_VERSION,
        METADATA_KEY: counted.model_dump(mode="json", exclude=unset),
        "interactions": items,  # last: the fast loader splits the rest of the file
    }
    findings = scan_data(path, data)
    if findings:
        listed = "\n".join(f"  - {finding}" for finding in findings[:10])
        raise CassetteError(
            f"refusing to save cassette {path}: it holds {len(findings)} key-like "
            f"string(s):\n{listed}\nRemove the secret from the prompt, tool output or "
            "configuration that sent it, then record again. Nothing was written."
        )
    text = dump_document(path, data)
    _write_atomically(path, text if is_json(path) else stamp_checksums(text))
    return counted
