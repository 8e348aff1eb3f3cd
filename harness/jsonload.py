"""Reading JSON with its nesting bounded before ``json.loads`` sees it.

``json.loads`` recurses once per nested array or object and raises
``RecursionError`` on input such as a few thousand ``[``; a caller that does
not expect that crashes. Every JSON file harness reads back (traces, reports,
approvals, checkpoints, session memory and plans) goes through ``load_json``,
so too deep a document is a ``JsonTooDeepError`` naming the file, never a
``RecursionError``.

The depth is measured first on the raw bytes (``json_depth``), in C: a first
version walked the brackets in Python and took 0.8 s on a 1 MiB body of
``[]``; this one takes ~50 ms there, and a real document skips it almost free.

Limits differ by document: ``DEFAULT_MAX_DEPTH`` (200) sits below the 255
levels pydantic validates anyway, which is more than any approval, report or
memory line harness writes. A trace nests two levels per span level, and a
valid trace may be thousands of spans deep, so ``TRACE_MAX_DEPTH`` is 25,000;
for those the interpreter's recursion limit is raised while ``json.loads``
runs (measured: 50,000 levels parse in 13 ms on an 8 MiB thread stack).

JSON may spell a lone UTF-16 surrogate (``"\\ud800"``); Python reads it into a
string that no UTF-8 writer accepts, so a report or trace holding one crashed
``harness eval compare`` and ``harness view`` when they wrote it out. Every
lone surrogate read is kept as its escape text (``\\ud800``, six characters):
the document loads and renders, showing what the file said.
"""

from __future__ import annotations

import json
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import accumulate
from typing import Any, Final

from pydantic_core import from_json

from harness.core.errors import HarnessError

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "FAST_DEPTH",
    "TRACE_MAX_DEPTH",
    "JsonTooDeepError",
    "escape_surrogates",
    "json_depth",
    "load_json",
    "recursion_room",
]

DEFAULT_MAX_DEPTH: Final = 200
TRACE_MAX_DEPTH: Final = 25_000

# The nesting pydantic_core's parser takes in both arrays and objects (it refuses
# objects 201 deep, arrays 202 deep).
FAST_DEPTH: Final = 200
# Frames the caller may already use when json.loads starts.
_HEADROOM: Final = 400
_LIMIT_LOCK = threading.Lock()

# Every byte but the four brackets and the quote, for bytes.translate to delete.
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
# Openers to +1 and closers to -1 once the bytes are read as signed chars.
_STEPS = bytes.maketrans(b"[{]}", b"\x01\x01\xff\xff")
# Where a lone surrogate can come from: an escape of one, or one already in the text.
_MAY_HOLD_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]|\xed[\xa0-\xbf]")
# json.loads pairs a high and a low surrogate into one character: any left is lone.
_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonTooDeepError(HarnessError, ValueError):
    """A JSON document nests arrays/objects deeper than its reader allows.

    Also a ``ValueError``, so readers that already turn "not JSON" into their
    own error kind (``except ValueError``) name the file the same way.
    """


def json_depth(raw: bytes) -> int:
    """The deepest bracket nesting in ``raw`` outside string literals.

    Escapes are dropped (escaped backslashes first, then escaped quotes),
    everything but brackets and quotes is deleted, string contents are cut
    out between quote pairs, and the depth is the largest running sum of +1
    per opener and -1 per closer. All of it runs in C (bytes methods,
    ``itertools.accumulate``), so the cost is linear in the input whatever is
    packed into it.

    Most strings hold no bracket and are ``""`` by then; two quotes side by side
    are an empty string or two strings with nothing structural between them, so
    dropping them first changes no depth and leaves the split (two thirds of the
    time on a 12 MB report) only the strings that do hold brackets.
    """
    text = raw.replace(b"\\\\", b"").replace(b'\\"', b"").translate(None, _NOT_STRUCTURE)
    text = text.replace(b'""', b"")
    if b'"' in text:
        text = b"".join(text.split(b'"')[::2])
    steps = memoryview(text.translate(_STEPS)).cast("b")
    return max(0, max(accumulate(steps), default=0))


def load_json(
    raw: str | bytes,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
    source: str = "JSON document",
    object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
) -> Any:
    """``json.loads`` after refusing input nested deeper than ``max_depth``.

    Args:
        raw: the document; bytes must be UTF-8.
        max_depth: the deepest array/object nesting accepted.
        source: how to name the document in the error (e.g. its path).
        object_pairs_hook: passed to ``json.loads`` (e.g. to refuse duplicate keys).

    Raises:
        JsonTooDeepError: nested deeper than ``max_depth``.
        ValueError: not JSON (``json.JSONDecodeError``) or not UTF-8
            (``UnicodeDecodeError``).
    """
    data = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    depth = json_depth(data)
    if depth > max_depth:
        raise JsonTooDeepError(
            f"{source} nests {depth} levels deep, more than the {max_depth} this reader "
            "accepts; it was not written by harness or is corrupt"
        )
    if depth <= FAST_DEPTH and object_pairs_hook is None:
        try:
            # pydantic's Rust parser: 2.4x json.loads on a 12 MB report. It gives the
            # same values, and refuses what json.loads takes (a lone surrogate escape),
            # which json.loads then reads or explains as before.
            return from_json(data)
        except ValueError:
            pass
    try:
        with recursion_room(depth):
            value = json.loads(raw, object_pairs_hook=object_pairs_hook)
            if _MAY_HOLD_SURROGATE.search(data) is None:
                return value
            return escape_surrogates(value)
    except RecursionError:  # the measure above should make this unreachable
        raise JsonTooDeepError(f"{source} nests too deep to parse (limit {max_depth})") from None


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group(0)):04x}"


def escape_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) written as its
    escape text (``"\\ud800"``), so it can be encoded as UTF-8."""
    if isinstance(value, str):
        return _SURROGATE.sub(_escape, value)
    if isinstance(value, dict):
        return {escape_surrogates(k): escape_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [escape_surrogates(item) for item in value]
    return value


@contextmanager
def recursion_room(depth: int) -> Iterator[None]:
    """Raise the recursion limit for the rare document deeper than it allows.

    ``json.loads`` and ``json.dumps`` recurse once per nesting level.
    """
    needed = depth + _HEADROOM
    if needed <= sys.getrecursionlimit() // 2:
        yield
        return
    with _LIMIT_LOCK:
        before = sys.getrecursionlimit()
        sys.setrecursionlimit(max(before, needed + before))
        try:
            yield
        finally:
            sys.setrecursionlimit(before)
