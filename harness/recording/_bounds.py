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

from harness.core.errors import CassetteError
from harness.yamlload import MAX_DOCUMENT_BYTES, MAX_EXPANDED_NODES, document_bounds

__all__ = ["MAX_DOCUMENT_BYTES", "MAX_EXPANDED_NODES", "check_bounds"]


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
    # Depth is left to the cassette's own validation: bodies are strings, and
    # a recorded file is never deep.
    why = document_bounds(text, max_depth=None)
    if why is not None:
        raise _refuse(path, why)
