"""A human view of a trace (``harness trace show``): the outline with status,
duration and the telling attributes of each span, wrapped to a width, and the
stored payloads of replay-mode traces on request."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterable
from typing import Any, Final

from harness.tracing._spans import TraceSpan
from harness.tracing._tree import TraceTree
from harness.tracing.outline import INDENT, format_attribute_value, walk_with_depth

__all__ = ["content_note", "render_trace"]

# Hashes and payloads are for machines; they would drown the view.
_HIDDEN_PARTS: Final = ("hash", "payload")
_MAX_VALUE_CHARS: Final = 60
# Below this many columns for the details, wrapped lines restart under the label.
_MIN_DETAIL_COLUMNS: Final = 30


def render_trace(
    tree: TraceTree,
    *,
    hide: Iterable[str] = _HIDDEN_PARTS,
    width: int | None = None,
    content: bool = False,
) -> str:
    """Return a multi-line, column-aligned view of ``tree``.

    One line per span: indented label, ``ok`` or ``ERROR``, duration in ms, then
    scalar attributes as ``key=value`` (one level of nested objects flattened as
    ``usage.input_tokens=...``; keys containing any of ``hide`` left out) and the
    names of its events.

    Args:
        tree: the trace.
        hide: attribute key parts to leave out.
        width: wrap the attributes so no line is longer (None: one line per span).
        content: also show each span's stored payloads (replay-mode traces keep
            them, redacted and truncated); see ``content_note`` for traces without.
    """
    hidden = tuple(hide)
    rows = [
        (f"{INDENT * depth}{span.label}", depth, span) for depth, span in walk_with_depth(tree.root)
    ]
    label_width = max(len(label) for label, _, _ in rows)
    count = len(rows)
    errors = sum(1 for _, _, span in rows if span.status == "error")
    header = (
        f"trace {tree.trace_id}  session {tree.session_key or '-'}  "
        f"created {tree.created_at}  {count} span{'s' if count != 1 else ''}"
        + (f", {errors} with errors" if errors else "")
    )
    lines = [header]
    for label, depth, span in rows:
        status = "ok" if span.status == "ok" else "ERROR"
        duration = "open" if span.duration_ms is None else f"{span.duration_ms:.1f}ms"
        head = f"{label.ljust(label_width)}  {status:<5}  {duration:>10}"
        details = " ".join(_attribute_pairs(span.attributes, hidden))
        if span.events:
            details += f"{' ' if details else ''}events: {', '.join(e.name for e in span.events)}"
        lines.extend(_wrap_row(head, details, depth, width))
        if content:
            lines.extend(_payload_lines(span, depth, width))
    return "\n".join(lines)


def content_note(tree: TraceTree) -> str | None:
    """Why ``tree`` has no content to show, or None when it has payloads."""
    if any("payload" in span.attributes for span in tree.walk()):
        return None
    if tree.capture_mode == "metadata":
        return (
            f"no content: trace {tree.trace_id} was captured in metadata mode, which keeps "
            "hashes, sizes and timings but never prompt, argument or answer text; "
            "run with HARNESS_TRACE_MODE=replay to keep redacted payloads"
        )
    if tree.capture_mode is None:
        return (
            f"no content: trace {tree.trace_id} holds no payloads and does not record its "
            "capture mode (an older trace file); run with HARNESS_TRACE_MODE=replay to keep them"
        )
    return (
        f"no content: trace {tree.trace_id} was captured in {tree.capture_mode} mode "
        "but no span stored a payload"
    )


def _wrap_row(head: str, details: str, depth: int, width: int | None) -> list[str]:
    if not details:
        return [head.rstrip()]
    if width is None or len(head) + 2 + len(details) <= width:
        return [f"{head}  {details}"]
    columns = width - len(head) - 2
    if columns >= _MIN_DETAIL_COLUMNS:
        wrapped = textwrap.wrap(details, columns, break_on_hyphens=False)
        pad = " " * (len(head) + 2)
        return [f"{head}  {wrapped[0]}", *(pad + line for line in wrapped[1:])]
    indent = INDENT * (depth + 2)
    return [
        head.rstrip(),
        *textwrap.wrap(
            details,
            max(width, len(indent) + 20),
            initial_indent=indent,
            subsequent_indent=indent,
            break_on_hyphens=False,
        ),
    ]


def _payload_lines(span: TraceSpan, depth: int, width: int | None) -> list[str]:
    payload = span.attributes.get("payload")
    if not isinstance(payload, dict):
        return []
    indent = INDENT * (depth + 2)
    lines: list[str] = []
    for key, value in payload.items():
        lines.append(f"{indent}| {key}:")
        for text in _payload_texts(value):
            for raw in text.splitlines() or [""]:
                if width is None:
                    lines.append(f"{indent}|   {raw}")
                    continue
                wrapped = textwrap.wrap(raw, max(width - len(indent) - 4, 20)) or [""]
                lines.extend(f"{indent}|   {part}" for part in wrapped)
    return lines


def _payload_texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(m, dict) and "role" in m for m in value):
        return [f"[{m['role']}] {_message_text(m)}" for m in value]
    return [json.dumps(value, ensure_ascii=False, default=str)]


def _message_text(message: dict[str, Any]) -> str:
    text = message.get("content")
    rest = {k: v for k, v in message.items() if k not in ("role", "content") and v}
    shown = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    if rest:
        shown += f" {json.dumps(rest, ensure_ascii=False, default=str)}"
    return shown


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
