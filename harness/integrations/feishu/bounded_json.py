"""Parsing JSON from the network with its nesting bounded before ``json.loads`` sees it.

``json.loads`` recurses once per nested array or object and raises
``RecursionError`` (or, in a thread with a small stack, worse) on input such
as a megabyte of ``[``. So the depth is measured first on the raw text: string
literals are cut out with one regex, then the brackets left are counted a run
at a time. Hand-written because no JSON parser we ship bounds depth; on a
1 MiB body of brackets it costs a few tens of milliseconds, once per request.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["MAX_JSON_DEPTH", "JsonTooDeep", "json_depth", "loads_bounded"]

MAX_JSON_DEPTH = 64
"""The deepest nesting accepted from Feishu (its real events nest about 5 deep)."""

# A complete string literal; possessive so a long string cannot backtrack.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_RUNS = re.compile(rb"[\[{]+|[\]}]+")


class JsonTooDeep(ValueError):
    """The document nests arrays/objects deeper than allowed."""


def json_depth(raw: bytes, *, stop_above: int | None = None) -> int:
    """The deepest bracket nesting in ``raw`` outside string literals.

    Args:
        stop_above: return as soon as the depth exceeds this (the exact
            maximum is not needed to refuse).
    """
    depth = deepest = 0
    for run in _RUNS.finditer(_STRING.sub(b"", raw)):
        size = run.end() - run.start()
        if run.group()[0] in b"[{":
            depth += size
            if depth > deepest:
                deepest = depth
                if stop_above is not None and deepest > stop_above:
                    return deepest
        else:
            depth = max(0, depth - size)
    return deepest


def loads_bounded(raw: bytes | str, *, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads`` after refusing input nested deeper than ``max_depth``.

    Raises:
        JsonTooDeep: nested too deep.
        ValueError: not JSON (``json.JSONDecodeError``) or not UTF-8.
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    depth = json_depth(data, stop_above=max_depth)
    if depth > max_depth:
        raise JsonTooDeep(f"the JSON nests more than {max_depth} levels deep")
    try:
        return json.loads(data)
    except RecursionError:  # the bound above should make this unreachable; never a 500
        raise JsonTooDeep(f"the JSON nests too deep to parse (limit {max_depth})") from None
