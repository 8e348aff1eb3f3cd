"""The outline of a span tree, written and read: one line per span, two spaces per level.

::

    agent.run
      agent.step
        llm.call
        tool.call explore [tool_call_index=1]
          subagent.run
      ...

A line reads ``kind`` when the span's name equals its kind, else ``kind name``
(``tool.call read``); chosen attributes can follow as ``[key=value, ...]``
(strings bare, other values as compact JSON), and a span whose status is
``error`` ends with ``!error`` (``tool.call read !error``). This is the text that
trace-shape assertions and golden files compare, so an outline that leaves the
mark off a span does not match an error span there: a tool that raised cannot
pass for one that worked.

Written outlines (``outline_text``) hold only those lines. Outlines read by
``parse_outline`` may also use ``*`` as a name (any name), ``...`` lines (any
number of further spans at that level), blank lines, ``#`` comments and any
consistent indent unit.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from harness.core import TraceAssertionError
from harness.tracing._spans import TraceSpan

__all__ = [
    "ANY_NAME",
    "ERROR_MARK",
    "GAP",
    "INDENT",
    "OutlineNode",
    "format_attribute_value",
    "outline_text",
    "parse_outline",
    "path_step",
    "span_label",
    "span_path",
    "walk_with_depth",
]

INDENT: Final = "  "
GAP: Final = "..."
ANY_NAME: Final = "*"
ERROR_MARK: Final = "!error"
_ATTRIBUTES = re.compile(r"^(?P<head>.*?)\s*\[(?P<body>[^\[\]]*)\]$")


def format_attribute_value(value: Any) -> str:
    """Render an attribute value the way outlines show it (strings bare, the rest JSON)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def span_label(span: TraceSpan, include_attributes: Iterable[str] = ()) -> str:
    """Return the outline line of one span (without indentation)."""
    label = span.label
    shown = [
        f"{key}={format_attribute_value(span.attributes[key])}"
        for key in include_attributes
        if key in span.attributes
    ]
    text = f"{label} [{', '.join(shown)}]" if shown else label
    return f"{text} {ERROR_MARK}" if span.status == "error" else text


def walk_with_depth(span: TraceSpan, depth: int = 0) -> Iterator[tuple[int, TraceSpan]]:
    """Yield ``(depth, span)`` depth first, children in their stored (begin) order."""
    stack = [(depth, span)]
    while stack:
        level, current = stack.pop()
        yield level, current
        stack.extend((level + 1, child) for child in reversed(current.children))


def outline_text(span: TraceSpan, include_attributes: Iterable[str] = ()) -> str:
    """Return the indented outline of ``span`` and its descendants (no final newline)."""
    keys = tuple(include_attributes)
    lines = [f"{INDENT * depth}{span_label(s, keys)}" for depth, s in walk_with_depth(span)]
    return "\n".join(lines)


def path_step(siblings: list[TraceSpan], index: int) -> str:
    """Name ``siblings[index]`` for a path: its label, plus ``[n]`` (1-based) among
    same-label siblings when there are several."""
    label = siblings[index].label
    same = [i for i, s in enumerate(siblings) if s.label == label]
    return label if len(same) == 1 else f"{label}[{same.index(index) + 1}]"


def span_path(root: TraceSpan, target: TraceSpan) -> str:
    """Return where ``target`` sits under ``root``, e.g. ``agent.run > agent.step[2] > llm.call``.

    Raises:
        ValueError: ``target`` is not ``root`` or one of its descendants.
    """
    # Iterative: a valid trace may be thousands of spans deep.
    above: dict[int, tuple[TraceSpan, int]] = {}  # id(span) -> (parent, index among siblings)
    stack = [root]
    while stack and id(target) not in above and target is not root:
        node = stack.pop()
        for index, child in enumerate(node.children):
            above[id(child)] = (node, index)
            stack.append(child)
    if target is not root and id(target) not in above:
        raise ValueError(f"span {target.span_id} ({target.label}) is not under {root.label}")
    steps: list[str] = []
    current = target
    while current is not root:
        parent, index = above[id(current)]
        steps.append(path_step(parent.children, index))
        current = parent
    steps.append(root.label)
    return " > ".join(reversed(steps))


# -- reading outlines ---------------------------------------------------------


@dataclass(frozen=True)
class OutlineNode:
    """One line of an outline and the lines indented under it.

    Attributes:
        kind: span kind, or ``...`` for a gap.
        name: span name (equals ``kind`` for a bare line; ``*`` for any name).
        attributes: ``(key, rendered value)`` pairs the span must have.
        children: the nodes one level deeper.
        error: the line ends with ``!error``: the span's status must be ``error``
            (without it, ``ok``).
        line: 1-based line number in the parsed text (0 when built in code).
    """

    kind: str
    name: str
    attributes: tuple[tuple[str, str], ...] = ()
    children: tuple[OutlineNode, ...] = ()
    line: int = field(default=0, compare=False)
    error: bool = False

    @property
    def is_gap(self) -> bool:
        """True for a ``...`` line."""
        return self.kind == GAP

    @property
    def label(self) -> str:
        """The line as normalised text (without indentation)."""
        text = self.kind if self.name == self.kind else f"{self.kind} {self.name}"
        if self.attributes:
            text += " [" + ", ".join(f"{k}={v}" for k, v in self.attributes) + "]"
        return f"{text} {ERROR_MARK}" if self.error else text

    def accepts(self, span: TraceSpan) -> bool:
        """True when ``span`` has this node's kind, name, status and attributes
        (children aside)."""
        if self.kind != span.kind or (self.name not in (ANY_NAME, span.name)):
            return False
        if self.error != (span.status == "error"):
            return False
        return all(
            key in span.attributes and format_attribute_value(span.attributes[key]) == value
            for key, value in self.attributes
        )

    def to_text(self, depth: int = 0) -> str:
        """Render back to outline text, two spaces per level."""
        lines: list[str] = []
        stack: list[tuple[int, OutlineNode]] = [(depth, self)]
        while stack:
            level, node = stack.pop()
            lines.append(f"{'  ' * level}{node.label}")
            stack.extend((level + 1, child) for child in reversed(node.children))
        return "\n".join(lines)

    def marked_errors(self) -> int:
        """How many lines of this outline carry ``!error``."""
        count = 0
        stack: list[OutlineNode] = [self]
        while stack:
            node = stack.pop()
            count += node.error
            stack.extend(node.children)
        return count

    def attribute_keys(self) -> tuple[str, ...]:
        """Every attribute key constrained anywhere in this outline, in first-seen order."""
        keys: dict[str, None] = {}
        stack: list[OutlineNode] = [self]
        while stack:
            node = stack.pop()
            keys.update(dict.fromkeys(k for k, _ in node.attributes))
            stack.extend(reversed(node.children))
        return tuple(keys)


def parse_outline(text: str) -> OutlineNode:
    """Parse outline text into its root node.

    Raises:
        TraceAssertionError: tabs, indentation that is not a multiple of the unit
            or jumps more than one level, several roots, an empty outline, a
            ``...`` root or a ``...`` with children. The message names the line.
    """
    entries = _indented_lines(text)
    if not entries:
        raise TraceAssertionError("the outline is empty: write at least one span kind")
    if entries[0][1] != 0:
        raise _outline_error(entries[0][0], "is indented deeper than a later top-level line")
    stack: list[tuple[int, _Draft]] = []
    root: _Draft | None = None
    for number, depth, content in entries:
        if depth > len(stack):
            raise _outline_error(number, "is indented more than one level below the line above")
        del stack[depth:]
        draft = _Draft(_parse_label(number, content))
        if depth == 0:
            if root is not None:
                raise _outline_error(
                    number,
                    f"is a second top-level line; an outline has one root (line {root.node.line})",
                )
            if draft.node.is_gap:
                raise _outline_error(number, "'...' cannot be the root")
            root = draft
        else:
            parent = stack[-1][1]
            if parent.node.is_gap:
                raise _outline_error(number, "is indented under '...', which cannot have children")
            parent.children.append(draft)
        stack.append((depth, draft))
    assert root is not None
    return root.build()


@dataclass
class _Draft:
    node: OutlineNode
    children: list[_Draft] = field(default_factory=list)

    def build(self) -> OutlineNode:
        n = self.node
        kids = tuple(child.build() for child in self.children)
        return OutlineNode(n.kind, n.name, n.attributes, kids, n.line, n.error)


def _indented_lines(text: str) -> list[tuple[int, int, str]]:
    """Return ``(line number, depth, content)`` for the meaningful lines."""
    raw = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        prefix = line[: len(line) - len(line.lstrip())]
        if "\t" in prefix:
            raise _outline_error(number, "is indented with a tab; indent with spaces")
        raw.append((number, len(prefix), stripped))
    if not raw:
        return []
    base = min(indent for _, indent, _ in raw)
    unit = next((indent - base for _, indent, _ in raw if indent > base), 0)
    result = []
    for number, indent, content in raw:
        offset = indent - base
        if unit and offset % unit:
            raise _outline_error(
                number,
                f"is indented {offset} spaces, not a multiple of {unit} "
                "(the indent unit set by the first indented line)",
            )
        result.append((number, offset // unit if unit else 0, content))
    return result


def _parse_label(number: int, content: str) -> OutlineNode:
    if content == GAP:
        return OutlineNode(GAP, GAP, line=number)
    error = content.endswith(f" {ERROR_MARK}")
    content = content.removesuffix(f" {ERROR_MARK}").rstrip() if error else content
    marks = [word for word in content.split() if word.startswith("!")]
    if marks:
        raise _outline_error(
            number, f"has {marks[0]!r}; the only mark is {ERROR_MARK!r}, at the end of the line"
        )
    attributes: tuple[tuple[str, str], ...] = ()
    found = _ATTRIBUTES.match(content)
    if found:
        content = found["head"]
        pairs = []
        for item in found["body"].split(","):
            key, sep, value = item.strip().partition("=")
            if not sep or not key.strip():
                raise _outline_error(number, f"has attribute {item.strip()!r}; write key=value")
            pairs.append((key.strip(), value.strip()))
        attributes = tuple(pairs)
    kind, _, name = content.partition(" ")
    if not kind:
        raise _outline_error(number, "has attributes but no span kind")
    if kind == GAP and error:
        raise _outline_error(number, f"marks '...' {ERROR_MARK}; mark the span lines instead")
    return OutlineNode(kind, name.strip() or kind, attributes, line=number, error=error)


def _outline_error(number: int, problem: str) -> TraceAssertionError:
    return TraceAssertionError(f"outline line {number} {problem}")
