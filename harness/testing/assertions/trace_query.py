"""Trace shapes: matching an outline (``harness.tracing.outline``) against a tree.

- ``exact``: the outline is the whole tree; ``...`` admits extra siblings there.
- ``subset``: every outline node is present and each indented node is a
  descendant (not necessarily a child) of its outline parent; the root may sit
  anywhere. Outline siblings map to disjoint subtrees.
- ``ordered=True``: siblings appear in outline order (begin order of spans);
  ``ordered=False`` compares siblings as multisets.
- In both modes a span whose status is ``error`` matches only a line marked
  ``!error``, and every error span of the tree must be matched by one: a ``...``
  or a subset outline cannot hide a tool that raised.

On a mismatch, ``find_shape_mismatch`` names the first differing node by path.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

from harness.tracing import TraceSpan, TraceTree, outline_text
from harness.tracing.outline import OutlineNode, format_attribute_value, path_step

__all__ = [
    "MatchMode",
    "ShapeMismatch",
    "TraceSource",
    "find_shape_mismatch",
    "normalize_trace",
    "root_span",
]

MatchMode = Literal["exact", "subset"]


@runtime_checkable
class _LazyTrace(Protocol):
    """Something that yields a tree on demand (the pytest ``trace`` fixture)."""

    def __trace_tree__(self) -> TraceTree: ...


TraceSource = TraceTree | TraceSpan | _LazyTrace
"""What the assertions accept: a tree, a span (a subtree), or a lazy handle."""


def root_span(source: TraceSource) -> TraceSpan:
    """The span at the top of ``source``."""
    # The concrete types first: an isinstance check against a runtime protocol
    # inspects the object's attributes, a few microseconds each time.
    if isinstance(source, TraceTree):
        return source.root
    if isinstance(source, TraceSpan):
        return source
    if isinstance(source, _LazyTrace):
        source = source.__trace_tree__()
    return source.root if isinstance(source, TraceTree) else source


def normalize_trace(tree_or_span: TraceSource, *, include_attributes: Iterable[str] = ()) -> str:
    """Return the outline of a tree (or subtree): ``kind`` or ``kind name`` per line,
    two spaces per level, ``[key=value]`` for each of ``include_attributes`` a span has."""
    return outline_text(root_span(tree_or_span), include_attributes)


# -- matching ---------------------------------------------------------------------


@dataclass(frozen=True)
class ShapeMismatch:
    """Where a tree first differs from an outline.

    Attributes:
        path: the differing node, e.g. ``agent.run > agent.step[2] > tool.call read``.
        detail: what was expected and what was found there.
    """

    path: str
    detail: str

    def __str__(self) -> str:
        return f"{self.path}: {self.detail}"


def find_shape_mismatch(
    tree: TraceSource,
    outline: OutlineNode,
    *,
    match: MatchMode = "exact",
    ordered: bool = True,
) -> ShapeMismatch | None:
    """Return None when ``tree`` has the shape of ``outline``, else the first difference."""
    if match not in ("exact", "subset"):
        raise ValueError(f"match must be 'exact' or 'subset', not {match!r}")
    root = root_span(tree)
    matcher = _Matcher(root, ordered)
    if match == "exact":
        if matcher.fits(outline, 0):
            return _unmarked_errors(matcher, outline)
        return matcher.explain_exact(outline, 0, root.label)
    if any(matcher.embeds(outline, i) for i in range(len(matcher.spans))):
        return _unmarked_errors(matcher, outline)
    return matcher.explain_subset_root(outline)


def _unmarked_errors(matcher: _Matcher, outline: OutlineNode) -> ShapeMismatch | None:
    """Error spans the matched outline did not mark (a ``...`` or subset skipped them).

    Each ``!error`` line matched a distinct error span, so any error span beyond
    their count went unmarked.
    """
    errors = [i for i, span in enumerate(matcher.spans) if span.status == "error"]
    marked = outline.marked_errors()
    if len(errors) <= marked:
        return None
    first = matcher.spans[errors[0]]
    why = first.attributes.get("error_type") or first.attributes.get("status") or "error"
    return ShapeMismatch(
        matcher.paths[errors[0]],
        f"the trace has {len(errors)} error span(s) and the outline marks {marked}; this "
        f"{first.label!r} ended in error ({why}): mark the line '{first.label} !error' if "
        "the failure is expected",
    )


class _Matcher:
    """Both matching modes over a pre-order index of the actual tree."""

    def __init__(self, root: TraceSpan, ordered: bool) -> None:
        self.ordered = ordered
        self.spans: list[TraceSpan] = []
        self.end: list[int] = []  # end[i]: index after the last descendant of span i
        self.kids: list[list[int]] = []
        self.paths: list[str] = []
        self._index(root, root.label)
        self._memo: dict[tuple[str, int, int], bool] = {}

    def _index(self, span: TraceSpan, path: str) -> int:
        at = len(self.spans)
        self.spans.append(span)
        self.end.append(0)
        self.kids.append([])
        self.paths.append(path)
        for number, child in enumerate(span.children):
            step = path_step(span.children, number)
            self.kids[at].append(self._index(child, f"{path} > {step}"))
        self.end[at] = len(self.spans)
        return at

    def _cached(self, mode: str, node: OutlineNode, at: int, compute: Any) -> bool:
        key = (mode, id(node), at)
        if key not in self._memo:
            self._memo[key] = bool(compute())
        return self._memo[key]

    # exact: the outline is the tree -------------------------------------------

    def fits(self, node: OutlineNode, at: int) -> bool:
        return self._cached(
            "fit",
            node,
            at,
            lambda: node.accepts(self.spans[at]) and self._children_fit(node.children, at),
        )

    def _children_fit(self, expected: tuple[OutlineNode, ...], at: int) -> bool:
        actual = self.kids[at]
        if self.ordered:
            return _sequence_fits(expected, actual, self.fits)
        wanted = [n for n in expected if not n.is_gap]
        has_gap = len(wanted) != len(expected)
        if len(wanted) > len(actual) or (not has_gap and len(wanted) != len(actual)):
            return False
        return _full_matching(wanted, actual, self.fits)

    # subset: the outline is embedded in the tree --------------------------------

    def embeds(self, node: OutlineNode, at: int) -> bool:
        return self._cached(
            "embed",
            node,
            at,
            lambda: node.accepts(self.spans[at]) and self._children_embed(node.children, at),
        )

    def _children_embed(self, expected: tuple[OutlineNode, ...], at: int) -> bool:
        wanted = [n for n in expected if not n.is_gap]
        start, stop = at + 1, self.end[at]
        if self.ordered:
            return self._ordered_embed(wanted, 0, start, stop, {})
        return self._unordered_embed(wanted, start, stop, [])

    def _ordered_embed(
        self,
        wanted: list[OutlineNode],
        i: int,
        start: int,
        stop: int,
        memo: dict[tuple[int, int], bool],
    ) -> bool:
        if i == len(wanted):
            return True
        if (i, start) not in memo:
            memo[(i, start)] = any(
                self.embeds(wanted[i], c)
                and self._ordered_embed(wanted, i + 1, self.end[c], stop, memo)
                for c in range(start, stop)
            )
        return memo[(i, start)]

    def _unordered_embed(
        self, wanted: list[OutlineNode], start: int, stop: int, taken: list[int]
    ) -> bool:
        if not wanted:
            return True
        first, rest = wanted[0], wanted[1:]
        for c in range(start, stop):
            overlaps = any(t <= c < self.end[t] or c <= t < self.end[c] for t in taken)
            if (
                not overlaps
                and self.embeds(first, c)
                and self._unordered_embed(rest, start, stop, [*taken, c])
            ):
                return True
        return False

    # explanations: the first difference, named by path ------------------------------

    def explain_exact(self, node: OutlineNode, at: int, path: str) -> ShapeMismatch:
        span = self.spans[at]
        if not node.accepts(span):
            return ShapeMismatch(path, f"expected {node.label!r}, got {_span_text(span, node)!r}")
        actual = self.kids[at]
        if not self.ordered:
            return self._explain_unordered_children(node, at)
        j = 0
        after_gap = False
        for child in node.children:
            if child.is_gap:
                after_gap = True
                continue
            if after_gap:
                hit = next((k for k in range(j, len(actual)) if self.fits(child, actual[k])), None)
                if hit is None:
                    near = next(
                        (k for k in range(j, len(actual)) if child.accepts(self.spans[actual[k]])),
                        None,
                    )
                    if near is not None:
                        return self.explain_exact(child, actual[near], self.paths[actual[near]])
                    return ShapeMismatch(
                        path,
                        f"expected a child {child.label!r} (outline line {child.line}) "
                        "after '...', found none",
                    )
                j, after_gap = hit + 1, False
                continue
            if j >= len(actual):
                return ShapeMismatch(
                    f"{path} > (child {j + 1})",
                    f"expected {child.label!r} (outline line {child.line}), got nothing: "
                    f"{span.label!r} has {len(actual)} children",
                )
            if not self.fits(child, actual[j]):
                return self.explain_exact(child, actual[j], self.paths[actual[j]])
            j += 1
        if j < len(actual) and not after_gap:
            extra = actual[j]
            return ShapeMismatch(
                self.paths[extra],
                f"expected no more children of {span.label!r}, got {self.spans[extra].label!r}",
            )
        return ShapeMismatch(path, f"children differ from the outline under line {node.line}")

    def _explain_unordered_children(self, node: OutlineNode, at: int) -> ShapeMismatch:
        path, actual = self.paths[at], self.kids[at]
        unused = list(actual)
        for child in (n for n in node.children if not n.is_gap):
            hit = next((c for c in unused if self.fits(child, c)), None)
            if hit is None:
                near = next((c for c in unused if child.accepts(self.spans[c])), None)
                if near is not None:
                    return self.explain_exact(child, near, self.paths[near])
                return ShapeMismatch(
                    path,
                    f"expected a child {child.label!r} (outline line {child.line}), got none "
                    f"among {_labels(self.spans[c] for c in actual)}",
                )
            unused.remove(hit)
        if unused and not any(n.is_gap for n in node.children):
            return ShapeMismatch(
                self.paths[unused[0]],
                f"expected no more children of {self.spans[at].label!r}, "
                f"got {_labels(self.spans[c] for c in unused)} in addition",
            )
        return ShapeMismatch(path, f"children differ from the outline under line {node.line}")

    def explain_subset_root(self, node: OutlineNode) -> ShapeMismatch:
        candidates = [i for i, span in enumerate(self.spans) if node.accepts(span)]
        if not candidates:
            return ShapeMismatch(
                self.spans[0].label,
                f"expected a span {node.label!r} (outline line {node.line}) somewhere in the "
                f"trace, found none",
            )
        return self._explain_embed(node, self._most_promising(node, candidates))

    def _most_promising(self, node: OutlineNode, candidates: Iterable[int]) -> int:
        """The candidate under which most of ``node``'s children can be placed."""
        return max(candidates, key=lambda c: (self._progress(node, c), -c))

    def _progress(self, node: OutlineNode, at: int) -> int:
        placed, start = 0, at + 1
        for child in (n for n in node.children if not n.is_gap):
            window = range(start, self.end[at]) if self.ordered else range(at + 1, self.end[at])
            hit = next((c for c in window if self.embeds(child, c)), None)
            if hit is None:
                break
            placed += 1
            start = self.end[hit] if self.ordered else start
        return placed

    def _explain_embed(self, node: OutlineNode, at: int) -> ShapeMismatch:
        path, stop = self.paths[at], self.end[at]
        start = at + 1
        wanted = [n for n in node.children if not n.is_gap]
        for number, child in enumerate(wanted):
            window = range(start, stop) if self.ordered else range(at + 1, stop)
            hit = next((c for c in window if self.embeds(child, c)), None)
            if hit is not None:
                start = self.end[hit] if self.ordered else start
                continue
            near = [c for c in window if child.accepts(self.spans[c])]
            if near:
                return self._explain_embed(child, self._most_promising(child, near))
            where = f"after {wanted[number - 1].label!r}" if self.ordered and number else "below"
            anywhere = any(self.embeds(child, c) for c in range(at + 1, stop))
            detail = f"expected {child.label!r} (outline line {child.line}) {where}, " + (
                "found it only out of order" if anywhere else "found none"
            )
            return ShapeMismatch(path, detail)
        return ShapeMismatch(
            path,
            f"the spans under outline line {node.line} "
            f"({_labels(wanted)}) cannot all be matched by separate spans",
        )


def _sequence_fits(expected: tuple[OutlineNode, ...], actual: list[int], fits: Any) -> bool:
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            result = j == len(actual)
        elif expected[i].is_gap:
            result = go(i + 1, j) or (j < len(actual) and go(i, j + 1))
        else:
            result = j < len(actual) and fits(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[(i, j)] = result
        return result

    return go(0, 0)


def _full_matching(wanted: list[OutlineNode], actual: list[int], fits: Any) -> bool:
    """True when every wanted node can be paired with a distinct actual span (Kuhn)."""
    owner: dict[int, int] = {}

    def place(i: int, seen: set[int]) -> bool:
        for c in actual:
            if c in seen or not fits(wanted[i], c):
                continue
            seen.add(c)
            if c not in owner or place(owner[c], seen):
                owner[c] = i
                return True
        return False

    return all(place(i, set()) for i in range(len(wanted)))


def _span_text(span: TraceSpan, node: OutlineNode) -> str:
    keys = [k for k, _ in node.attributes]
    shown = [
        f"{k}={format_attribute_value(span.attributes[k])}" for k in keys if k in span.attributes
    ]
    text = f"{span.label} [{', '.join(shown)}]" if shown else span.label
    return f"{text} !error" if span.status == "error" else text


def _labels(items: Iterable[TraceSpan | OutlineNode]) -> str:
    return ", ".join(repr(item.label) for item in items) or "nothing"
