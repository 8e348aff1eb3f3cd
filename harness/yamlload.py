"""Reading YAML with its size, alias expansion and nesting bounded.

Three shapes of hostile YAML hurt a reader that trusts ``yaml.safe_load``:

- an alias bomb: a few hundred bytes whose aliases (``*a``) refer to earlier
  anchored nodes nine times over, nine levels deep. PyYAML builds each alias as
  a shared reference, so the load is instant, but every walk over the result
  (validation, a deep copy, ``json.dumps``) visits 9^9 nodes: a minute of CPU
  and then a ``MemoryError``;
- deep nesting: a thousand nested block mappings load, and the first
  recursive walk (pydantic included) raises ``RecursionError``;
- sheer size.

:func:`document_bounds` counts, from the parser's events in one pass (libyaml's
C parser where installed), the nodes a walk would visit with aliases expanded
and the deepest nesting, stopping as soon as a bound is passed. :func:`load_yaml`
runs it and then the safe loader. Every YAML file harness reads (scenario
scripts, simulator scripts, case files, cassettes) goes through these bounds.
"""

from __future__ import annotations

from typing import Any, Final

import yaml

from harness.core.errors import HarnessError

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_EXPANDED_NODES",
    "MAX_YAML_DEPTH",
    "DocumentBoundsError",
    "YamlSyntaxError",
    "describe_yaml_error",
    "document_bounds",
    "load_yaml",
]

MAX_DOCUMENT_BYTES: Final = 64 * 1024 * 1024
# A recorded 1,000-interaction cassette has about 40,000 nodes; 2 million leaves
# room for very long conversations and still walks in about a second.
MAX_EXPANDED_NODES: Final = 2_000_000
# Below the ~1,000 frames a recursive walk of the loaded value may use, and far
# above any script, case or cassette harness writes.
MAX_YAML_DEPTH: Final = 200

_Loader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


class DocumentBoundsError(HarnessError, ValueError):
    """A document is too large, nests too deep, or its aliases expand too far."""


class YamlSyntaxError(HarnessError, yaml.YAMLError):
    """Text that is not YAML. Its message is one line naming the document (the file,
    or the variable that named it), the line and column, and PyYAML's complaint.

    Attributes:
        detail: the same without the document's name (``line 3, column 3: ...``).
    """

    def __init__(self, message: str, detail: str) -> None:
        super().__init__(message)
        self.detail = detail


def describe_yaml_error(exc: yaml.YAMLError) -> str:
    """PyYAML's error as one line: ``line 3, column 3: <problem> (<context>)``.

    PyYAML's own text spans three or four lines and names the document
    ``"<unicode string>"``, which tells a user nothing about which file it was.
    """
    if not isinstance(exc, yaml.MarkedYAMLError):
        return " ".join(str(exc).split())
    mark = exc.problem_mark or exc.context_mark
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    problem = " ".join(str(exc.problem or "").split()) or "cannot be parsed"
    context = " ".join(str(exc.context or "").split())
    return f"{where}{problem}" + (f" ({context})" if context else "")


def document_bounds(
    text: str,
    *,
    max_nodes: int = MAX_EXPANDED_NODES,
    max_depth: int | None = MAX_YAML_DEPTH,
) -> str | None:
    """Why ``text`` is out of bounds, or None when it is within them.

    A syntax error is not this function's business: it returns None and leaves
    the error, with its line and column, to the loader.
    """
    sizes: dict[str, int] = {}
    anchors: list[str | None] = [None]  # the open collections, outermost first
    counts: list[int] = [0]  # nodes in each open collection so far
    try:
        for event in yaml.parse(text, Loader=_Loader):
            if isinstance(event, _OPEN):
                anchors.append(event.anchor)
                counts.append(1)
                if max_depth is not None and len(counts) - 1 > max_depth:
                    return f"it nests deeper than {max_depth} levels"
                continue
            if isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor or "", 1)
            elif isinstance(event, yaml.ScalarEvent):
                size = 1
                if event.anchor:
                    sizes[event.anchor] = 1
            elif isinstance(event, _CLOSE) and len(counts) > 1:
                anchor, size = anchors.pop(), counts.pop()
                if anchor:
                    sizes[anchor] = size
            else:
                continue
            counts[-1] += size
            if counts[-1] > max_nodes:
                return f"its YAML aliases expand to over {max_nodes:,} nodes (an alias bomb)"
    except yaml.YAMLError:
        return None
    return None


def load_yaml(text: str, *, source: str) -> Any:
    """``yaml.safe_load(text)`` after refusing a document out of bounds.

    Args:
        source: how to name the document in the error, e.g. ``"HARNESS_SCRIPT='s.yaml'"``.

    Raises:
        DocumentBoundsError: over :data:`MAX_DOCUMENT_BYTES` characters, deeper
            than :data:`MAX_YAML_DEPTH`, or over :data:`MAX_EXPANDED_NODES` nodes
            with aliases expanded. The message names ``source``.
        YamlSyntaxError: the text is not YAML; one line naming ``source``, the line
            and column (a ``yaml.YAMLError`` too, for callers that catch that).
    """
    why = (
        f"it is {len(text)} characters, over {MAX_DOCUMENT_BYTES}"
        if len(text) > MAX_DOCUMENT_BYTES
        else document_bounds(text)
    )
    if why is not None:
        raise DocumentBoundsError(
            f"{source} is refused: {why}; harness reads no document that large or "
            "that deep. Write it flatter (or without aliases)."
        )
    try:
        return yaml.load(text, Loader=_Loader)  # a safe (C) loader
    except yaml.YAMLError as exc:
        detail = describe_yaml_error(exc)
        raise YamlSyntaxError(f"{source} is not valid YAML: {detail}", detail) from None
