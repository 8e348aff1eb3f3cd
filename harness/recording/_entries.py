"""Stored interactions, split from the file text and parsed only when used.

A YAML cassette written by harness ends with its ``interactions`` list, and each
item starts with ``- harness_match: METHOD /path <key digest> <checksum>``. A
regex finds those lines, so the file is indexed without parsing it; each item's
``request:`` and ``response:`` parts parse on first use. The checksum covers the
item's text, so an item edited by hand is detected and re-read, not trusted.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, NamedTuple

from harness.recording._fastyaml import read_block_document
from harness.recording._format import MATCH_KEY, Interaction, is_json, parse_document
from harness.recording._layout import check_request, check_response

__all__ = ["CassetteEntries", "split_items", "stamp_checksums"]

_SECTION = "\ninteractions:\n"
_ITEM_PREFIX = f"- {MATCH_KEY}: "
_ITEM = re.compile(rf"^{re.escape(_ITEM_PREFIX)}([^\n]*)\n", re.MULTILINE)
_RESPONSE = "\n  response:\n"
_CHECKSUM_CHARS = 16
_PLACEHOLDER = "0" * _CHECKSUM_CHARS


def _checksum(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=_CHECKSUM_CHARS // 2).hexdigest()


class _Item(NamedTuple):
    match: str
    request_text: str
    response_text: str
    intact: bool


def stamp_checksums(text: str) -> str:
    """Fill the checksum of every item's match line in freshly dumped YAML."""
    pieces: list[str] = []
    last = 0
    found = list(_ITEM.finditer(text))
    for position, line in enumerate(found):
        end = found[position + 1].start() if position + 1 < len(found) else len(text)
        match = line.group(1)
        if match.endswith(" " + _PLACEHOLDER):
            match = match[: -len(_PLACEHOLDER)] + _checksum(text[line.end() : end])
        pieces += [text[last : line.start()], _ITEM_PREFIX, match, "\n"]
        last = line.end()
    return "".join([*pieces, text[last:]])


def split_items(text: str) -> tuple[str, list[_Item]] | None:
    """``(header text, items)`` of YAML that harness wrote, or None for anything else."""
    head_end = text.find(_SECTION)
    if head_end < 0:
        return None
    starts = _item_starts(text, head_end + len(_SECTION))
    if not starts:
        return None
    items = []
    for position, start in enumerate(starts):
        end = starts[position + 1] if position + 1 < len(starts) else len(text)
        line_end = text.find("\n", start, end)
        if line_end < 0:
            return None
        body = text[line_end + 1 : end]
        middle = body.find(_RESPONSE)
        match, _, checksum = text[start + len(_ITEM_PREFIX) : line_end].rpartition(" ")
        if middle < 0 or not match:
            return None
        intact = checksum == _checksum(body)
        items.append(_Item(match, body[: middle + 1], body[middle + 1 :], intact))
    return text[: head_end + 1], items


def _item_starts(text: str, first: int) -> list[int]:
    """Where each ``- harness_match: `` line starts, the first one right at ``first``.

    ``str.find`` for the line starts: the multi-line pattern took 53 us to walk an
    8 KB cassette, the finds take 1 us. Item content is indented, so a line that
    starts with the prefix is always an item's first line.
    """
    if not text.startswith(_ITEM_PREFIX, first):
        return []
    starts = [first]
    marker = "\n" + _ITEM_PREFIX
    found = text.find(marker, first)
    while found >= 0:
        starts.append(found + 1)
        found = text.find(marker, found + 1)
    return starts


class CassetteEntries:
    """The interactions of a loaded cassette, parsed lazily when split from text.

    Args:
        path: the cassette file, for error messages.
        parsed: interactions already parsed (the full-parse path).
        items: split item texts (the fast path).
    """

    def __init__(
        self, path: Path, parsed: list[Interaction] | None = None, items: list[_Item] | None = None
    ) -> None:
        self._path = path
        self._items = items or []
        count = len(parsed) if parsed is not None else len(self._items)
        self._requests: list[dict[str, Any] | None] = (
            [p.request for p in parsed] if parsed else [None] * count
        )
        self._responses: list[dict[str, Any] | None] = (
            [p.response for p in parsed] if parsed else [None] * count
        )
        self._matches = (
            [p.match for p in parsed] if parsed else [item.match for item in self._items]
        )

    def __len__(self) -> int:
        return len(self._matches)

    def match(self, index: int) -> str | None:
        """The stored ``harness_match`` line of interaction ``index`` (no parsing)."""
        return self._matches[index]

    def intact(self, index: int) -> bool:
        """True when the item's text is unchanged since harness wrote it."""
        return bool(self._items) and self._items[index].intact

    def request(self, index: int) -> dict[str, Any]:
        """The stored request dict of ``index``, parsed now if needed."""
        request = self._requests[index]
        if request is None:
            data = parse_document(self._path, self._items[index].request_text)
            request = self._requests[index] = check_request(
                self._path, index, _part(data, "request")
            )
        return request

    def response(self, index: int) -> dict[str, Any]:
        """The stored response dict of ``index``, parsed now if needed."""
        response = self._responses[index]
        if response is None:
            text = self._items[index].response_text
            data = None if is_json(self._path) else read_block_document(text)
            if data is None:  # not the subset harness writes (edited by hand?)
                data = parse_document(self._path, text)
            response = self._responses[index] = check_response(
                self._path, index, _part(data, "response")
            )
        return response


def _part(data: Any, name: str) -> Any:
    return data.get(name) if isinstance(data, dict) else None
