"""Readable differences between a request and the nearest recorded one."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["describe_difference", "nearest", "similarity"]

_MAX_VALUE = 160
_MAX_LINES = 25


def similarity(old: Any, new: Any) -> tuple[int, int]:
    """A cheap score of how alike two normalized bodies are (higher is closer).

    Counts equal top-level fields, then the length of the common prefix of the
    conversation lists (``messages``; the Responses API's ``input`` items), which
    is what usually drifts in an agent conversation.
    """
    if not isinstance(old, dict) or not isinstance(new, dict):
        return (int(old == new), 0)
    equal = sum(1 for key in old.keys() & new.keys() if old[key] == new[key])
    key = "messages" if "messages" in old or "messages" in new else "input"
    old_messages, new_messages = old.get(key), new.get(key)
    prefix = 0
    if isinstance(old_messages, list) and isinstance(new_messages, list):
        for a, b in zip(old_messages, new_messages, strict=False):
            if a != b:
                break
            prefix += 1
    return (prefix, equal)


def nearest(new: Any, candidates: Sequence[tuple[int, Any, bool]]) -> tuple[int, Any] | None:
    """The candidate ``(index, body, played)`` closest to ``new``.

    Ties prefer an unplayed interaction, then the earliest one.
    """
    best: tuple[tuple[int, int], bool, int] | None = None
    chosen: tuple[int, Any] | None = None
    for index, body, played in candidates:
        rank = (similarity(body, new), not played, -index)
        if best is None or rank > best:
            best, chosen = rank, (index, body)
    return chosen


def _short(value: Any) -> str:
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    text = repr(value)
    if len(text) > _MAX_VALUE:
        return text[: _MAX_VALUE - 1] + "…" + f" ({len(text)} chars)"
    return text


def _path(parts: Sequence[Any]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(body)"


def describe_difference(old: Any, new: Any) -> list[str]:
    """Lines like ``messages[1].content: 'old' -> 'new'`` from recorded to current."""
    from deepdiff import DeepDiff  # only on the error path: it is slow to import

    diff = DeepDiff(old, new, view="tree", verbose_level=2)
    lines: list[str] = []
    for kind, levels in diff.items():
        for level in levels:
            where = _path(level.path(output_format="list"))
            if kind.endswith("_added"):
                lines.append(f"{where}: added {_short(level.t2)}")
            elif kind.endswith("_removed"):
                lines.append(f"{where}: removed (was {_short(level.t1)})")
            else:
                lines.append(f"{where}: {_short(level.t1)} -> {_short(level.t2)}")
    lines.sort()
    if len(lines) > _MAX_LINES:
        hidden = len(lines) - _MAX_LINES
        lines = [*lines[:_MAX_LINES], f"... and {hidden} more differences"]
    return lines
