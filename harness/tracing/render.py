"""A human view of a trace (``harness trace show``): the outline with status,
duration and the telling attributes of each span."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from harness.tracing.outline import INDENT, format_attribute_value, walk_with_depth
from harness.tracing.tree import TraceTree

__all__ = ["render_trace"]

# Hashes and payloads are for machines; they would drown the view.
_HIDDEN_PARTS: Final = ("hash", "payload")
_MAX_VALUE_CHARS: Final = 60


def render_trace(tree: TraceTree, *, hide: Iterable[str] = _HIDDEN_PARTS) -> str:
    """Return a multi-line, column-aligned view of ``tree``.

    One line per span: indented label, ``ok`` or ``ERROR``, duration in ms, then
    scalar attributes as ``key=value`` (one level of nested objects flattened as
    ``usage.input_tokens=...``; keys containing any of ``hide`` left out) and the
    names of its events.
    """
    hidden = tuple(hide)
    rows = [(f"{INDENT * depth}{span.label}", span) for depth, span in walk_with_depth(tree.root)]
    width = max(len(label) for label, _ in rows)
    count = len(rows)
    errors = sum(1 for _, span in rows if span.status == "error")
    header = (
        f"trace {tree.trace_id}  session {tree.session_key or '-'}  "
        f"created {tree.created_at}  {count} span{'s' if count != 1 else ''}"
        + (f", {errors} with errors" if errors else "")
    )
    lines = [header]
    for label, span in rows:
        status = "ok" if span.status == "ok" else "ERROR"
        duration = "open" if span.duration_ms is None else f"{span.duration_ms:.1f}ms"
        details = " ".join(_attribute_pairs(span.attributes, hidden))
        if span.events:
            details += f"{' ' if details else ''}events: {', '.join(e.name for e in span.events)}"
        lines.append(f"{label.ljust(width)}  {status:<5}  {duration:>10}  {details}".rstrip())
    return "\n".join(lines)


def _attribute_pairs(attributes: dict[str, Any], hidden: tuple[str, ...]) -> list[str]:
    pairs: list[str] = []
    for key, value in attributes.items():
        if any(part in key for part in hidden):
            continue
        if isinstance(value, dict):
            pairs.extend(
                f"{key}.{sub}={_short(v)}"
                for sub, v in value.items()
                if not isinstance(v, dict | list) and not any(p in sub for p in hidden)
            )
        elif not isinstance(value, list):
            pairs.append(f"{key}={_short(value)}")
    return pairs


def _short(value: Any) -> str:
    text = format_attribute_value(value)
    return text if len(text) <= _MAX_VALUE_CHARS else text[: _MAX_VALUE_CHARS - 3] + "..."
