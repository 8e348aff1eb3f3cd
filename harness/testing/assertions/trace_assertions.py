"""Assertions on trace trees for tests: shapes, golden files, loading and viewing.

``assert_trace_shape`` compares a tree with an outline (syntax in
``harness.tracing.outline``, matching modes in ``harness.testing.assertions.trace_query``);
``assert_trace_golden`` compares it with a stored outline file that
``--update-shapes`` rewrites. Failures raise ``TraceAssertionError`` (an
``AssertionError``) whose message names the first differing node by path, shows
both outlines and a deepdiff of the two trees.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from harness.core import TraceAssertionError
from harness.files import atomic_write_text
from harness.testing.assertions.trace_query import (
    MatchMode,
    TraceSource,
    find_shape_mismatch,
    normalize_trace,
    root_span,
)
from harness.tracing import TraceSpan, TraceTree, render_trace, span_label
from harness.tracing.outline import OutlineNode, parse_outline

__all__ = [
    "assert_trace_golden",
    "assert_trace_shape",
    "load_trace",
    "normalize_trace",
    "parse_outline",
    "render_trace",
]

_MAX_DIFF_LINES: Final = 40


def load_trace(path: str | Path) -> TraceTree:
    """Read and validate a trace file (see ``harness.tracing._schema``)."""
    return TraceTree.load(path)


def assert_trace_shape(
    tree: TraceSource,
    outline: str | OutlineNode,
    *,
    match: MatchMode = "exact",
    ordered: bool = True,
) -> None:
    """Assert that ``tree`` has the shape ``outline`` describes.

    Args:
        tree: a trace tree, or a span to check as the root of a subtree.
        outline: outline text (indented, one span per line) or a parsed outline.
        match: ``exact`` (the whole tree) or ``subset`` (the outline is embedded,
            each indented node a descendant of the one above it).
        ordered: siblings must appear in outline order; False compares multisets.

    Raises:
        TraceAssertionError: the shapes differ; the message names the first
            differing node, shows both outlines and a deepdiff.
    """
    expected = parse_outline(outline) if isinstance(outline, str) else outline
    mismatch = find_shape_mismatch(tree, expected, match=match, ordered=ordered)
    if mismatch is None:
        return
    root = root_span(tree)
    raise TraceAssertionError(
        _failure_message(
            f"trace shape does not match (match={match}, ordered={ordered})",
            str(mismatch),
            expected,
            root,
            ordered,
        )
    )


def assert_trace_golden(
    tree: TraceSource,
    path: str | Path,
    *,
    update: bool = False,
    include_attributes: Iterable[str] = (),
) -> None:
    """Assert that ``normalize_trace(tree)`` equals the golden outline stored at ``path``.

    Args:
        tree: the tree (or subtree) to check.
        path: the golden text file.
        update: write the current outline to ``path`` (atomically) instead of
            comparing; the pytest option ``--update-shapes`` passes True.
        include_attributes: attribute keys shown in the outline (see ``normalize_trace``).

    Raises:
        TraceAssertionError: the file is missing (and ``update`` is False) or differs.
    """
    golden = Path(path)
    actual = normalize_trace(tree, include_attributes=include_attributes)
    if update:
        atomic_write_text(golden, actual + "\n")
        return
    try:
        stored = golden.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceAssertionError(
            f"golden trace shape {golden} does not exist; run pytest with --update-shapes "
            "to create it from this run, then review and commit it"
        ) from None
    if _lines(stored) == _lines(actual):
        return
    expected = parse_outline(stored)
    mismatch = find_shape_mismatch(tree, expected, match="exact", ordered=True)
    root = root_span(tree)
    first = str(mismatch) if mismatch else "the outlines differ in attribute text"
    raise TraceAssertionError(
        _failure_message(
            f"trace shape differs from golden file {golden} "
            "(run pytest with --update-shapes to accept the new shape)",
            first,
            expected,
            root,
            True,
        )
    )


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines() if line.strip()]


# -- failure messages ------------------------------------------------------------


def _failure_message(
    title: str, first: str, expected: OutlineNode, actual: TraceSpan, ordered: bool
) -> str:
    keys = expected.attribute_keys()
    return (
        f"{title}\n"
        f"first difference: {first}\n\n"
        f"expected outline:\n{_indent(expected.to_text())}\n"
        f"actual outline:\n{_indent(normalize_trace(actual, include_attributes=keys))}\n"
        f"deepdiff (expected -> actual):\n{_indent(_deepdiff(expected, actual, keys, ordered))}"
    )


def _indent(text: str) -> str:
    return "".join(f"    {line}\n" for line in text.rstrip("\n").splitlines())


def _outline_dict(node: OutlineNode) -> dict[str, Any]:
    return {node.label: [_outline_dict(child) for child in node.children]}


def _span_dict(span: TraceSpan, keys: tuple[str, ...]) -> dict[str, Any]:
    return {span_label(span, keys): [_span_dict(child, keys) for child in span.children]}


def _deepdiff(
    expected: OutlineNode, actual: TraceSpan, keys: tuple[str, ...], ordered: bool
) -> str:
    from deepdiff import DeepDiff  # lazy: only failing assertions pay for it

    diff = DeepDiff(
        _outline_dict(expected), _span_dict(actual, keys), ignore_order=not ordered, view="text"
    )
    text: str = diff.pretty() if diff else "(no structural difference)"
    lines = text.splitlines()
    if len(lines) > _MAX_DIFF_LINES:
        hidden = len(lines) - _MAX_DIFF_LINES
        lines = [*lines[:_MAX_DIFF_LINES], f"... {hidden} more lines"]
    return "\n".join(lines)
