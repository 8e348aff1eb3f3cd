"""Parsing JSON from the network with its nesting bounded before ``json.loads`` sees it.

``json.loads`` recurses once per nested array or object and raises
``RecursionError`` (or, in a thread with a small stack, worse) on input such
as a megabyte of ``[``. So the depth is measured first on the raw bytes (see
``json_depth``). Hand-written because no JSON parser we ship bounds depth. A
first version walked the brackets in Python and took 0.8 s on a 1 MiB body of
``[]``; this one runs in C (1 MiB bodies: ~50 ms of brackets, ~100 ms of
quotes at worst; a real event has a handful of brackets and skips it).
"""

from __future__ import annotations

import json
from itertools import accumulate
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeep", "json_depth", "loads_bounded"]

MAX_JSON_DEPTH = 64
"""The deepest nesting accepted from Feishu (its real events nest about 5 deep)."""

# Every byte but the four brackets and the quote, for bytes.translate to delete.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
# Openers to +1 and closers to -1 once the bytes are read as signed chars.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")


class JsonTooDeep(ValueError):
    """The document nests arrays/objects deeper than allowed."""


def json_depth(raw: bytes) -> int:
    """The deepest bracket nesting in ``raw`` outside string literals.

    Escapes are dropped (escaped backslashes first, then escaped quotes),
    everything but brackets and quotes is deleted, string contents are cut
    out between quote pairs, and the depth is the largest running sum of +1
    per opener and -1 per closer. All of it runs in C (bytes methods,
    ``itertools.accumulate``), so the cost is linear in the body whatever an
    attacker packs into it.
    """
    text = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    if b'"' in text:
        text = b"".join(text.split(b'"')[::2])
    steps = memoryview(text.translate(_STEPS)).cast("b")
    return max(0, max(accumulate(steps), default=0))


def loads_bounded(raw: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` after refusing input nested deeper than ``max_depth``.

    Raises:
        JsonTooDeep: nested too deep.
        ValueError: not JSON (``json.JSONDecodeError``) or not UTF-8.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    depth = json_depth(data)
    if depth > max_depth:
        raise JsonTooDeep(f"the JSON nests more than {max_depth} levels deep")
    try:
        return json.loads(data)
    except RecursionError:  # the bound above should make this unreachable; never a 500
        raise JsonTooDeep(f"the JSON nests too deep to parse (limit {max_depth})") from None
