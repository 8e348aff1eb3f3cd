"""Parsing JSON from the network with its nesting bounded before ``json.loads`` sees it.

``json.loads`` recurses once per nested array or object and raises
``RecursionError`` (or, in a thread with a small stack, worse) on input such
as a megabyte of ``[``. So the depth is measured first on the raw bytes (see
``harness.jsonload.json_depth``, shared with the file readers). Hand-written
because no JSON parser we ship bounds depth. A first version walked the
brackets in Python and took 0.8 s on a 1 MiB body of ``[]``; this one runs in C
(1 MiB bodies: ~50 ms of brackets, ~100 ms of quotes at worst; a real event has
a handful of brackets and skips it).
"""

from __future__ import annotations

import json
from typing import Any

from harness.jsonload import json_depth

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeep", "json_depth", "loads_bounded"]

MAX_JSON_DEPTH = 64
"""The deepest nesting accepted from Feishu (its real events nest about 5 deep)."""


class JsonTooDeep(ValueError):
    """The document nests arrays/objects deeper than allowed."""


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
