"""Bounds on a cassette document before anything walks it (hostile files).

A YAML alias refers to an earlier anchored node. PyYAML builds an alias as a
shared reference, so parsing a 547-byte "billion laughs" file is instant, but
every walk over the result (validation, the secret scan, a re-save) visits the
shared nodes once per reference: 9 nested levels of 9 aliases is 9^9 nodes,
minutes of CPU. Refusing aliases outright would also refuse cassettes that a
YAML dumper wrote with ``&id001``/``*id001`` for a repeated object, which is
legitimate; so aliases are allowed, and the document's expanded size (nodes
counted as a walk would visit them) is computed from the parser's events in
one pass and bounded. The pass runs only when the text contains ``*``, the
alias indicator, so ordinary cassettes pay nothing for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import yaml

from harness.core.errors import CassetteError

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_EXPANDED_NODES", "check_bounds"]

MAX_DOCUMENT_BYTES: Final = 64 * 1024 * 1024
# A recorded 1,000-interaction cassette has about 40,000 nodes; 2 million leaves
# room for very long conversations and still walks in about a second.
MAX_EXPANDED_NODES: Final = 2_000_000

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _refuse(path: Path, why: str) -> CassetteError:
    return CassetteError(
        f"cassette {path} is refused: {why}. A cassette is a list of recorded HTTP "
        "exchanges; this file is not one harness will walk. Restore it from version "
        "control, or delete it and record it again."
    )


def check_bounds(path: Path, text: str, *, aliases: bool = True) -> None:
    """Refuse a document too large, or whose aliases expand too far.

    Raises:
        CassetteError: over :data:`MAX_DOCUMENT_BYTES`, or more than
            :data:`MAX_EXPANDED_NODES` nodes once aliases are expanded.
    """
    if len(text) > MAX_DOCUMENT_BYTES:
        raise _refuse(path, f"it is {len(text)} characters, over {MAX_DOCUMENT_BYTES}")
    if not aliases or "*" not in text:
        return  # JSON, or no alias: the node count is bounded by the text size
    sizes: dict[str, int] = {}
    anchors: list[str | None] = [None]  # the open collections, outermost first
    counts: list[int] = [0]  # nodes in each open collection so far
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, _OPEN):
                anchors.append(event.anchor)
                counts.append(1)
                continue
            if isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor or "", 1)
            elif isinstance(event, yaml.ScalarEvent):
                size = 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, _CLOSE) and len(counts) > 1:
                anchor, size = anchors.pop(), counts.pop()
                if anchor:
                    sizes[anchor] = size
            else:
                continue
            counts[-1] += size
            if counts[-1] > MAX_EXPANDED_NODES:
                raise _refuse(
                    path,
                    f"its YAML aliases expand to over {MAX_EXPANDED_NODES:,} nodes (an alias bomb)",
                )
    except yaml.YAMLError:
        return  # the parse proper reports the syntax error with its position
