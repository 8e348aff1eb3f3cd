"""A finished trace: the tree of spans of one run, with queries and JSON I/O."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError
from pydantic_core import PydanticSerializationError

from harness.core import TraceAssertionError
from harness.jsonload import (
    FAST_DEPTH,
    TRACE_MAX_DEPTH,
    JsonTooDeepError,
    json_depth,
    load_json,
    recursion_room,
)
from harness.tracing._errors import TraceFormatError, TracingError
from harness.tracing._modes import TraceMode
from harness.tracing._schema import SCHEMA_VERSION, validate_trace_document
from harness.tracing._spans import SpanStatus, TraceSpan
from harness.tracing._written import was_written
from harness.tracing.outline import outline_text, span_path, walk_with_depth

__all__ = ["TraceTree"]

_MISSING: Any = object()


class TraceTree(BaseModel):
    """One run as a tree of spans (the content of a trace file, see ``schema``).

    Query methods take the same filters: ``kind``, ``name``, ``status``,
    ``within`` (an ancestor span, or a label such as ``"tool.call explore"`` or a
    kind such as ``"subagent.run"`` that some ancestor must have) and any number
    of ``attribute=value`` pairs that must equal the span's attributes.

    ``path`` is where the tree was recorded or loaded from (None when it was not
    written, e.g. because the recorder failed or none was configured).
    """

    model_config = ConfigDict(extra="forbid")

    schema_version: int = SCHEMA_VERSION
    # None: a version 1 file, recorded before the mode was written down.
    capture_mode: TraceMode | None = None
    trace_id: str
    session_key: str | None = None
    created_at: str
    root: TraceSpan
    metadata: dict[str, Any] = Field(default_factory=dict)

    _path: Path | None = PrivateAttr(default=None)

    @property
    def path(self) -> Path | None:
        """The file this tree was written to or read from, if any."""
        return self._path

    @path.setter
    def path(self, value: Path | None) -> None:
        self._path = value

    def __eq__(self, other: object) -> bool:
        # Where a tree was stored is not part of its value: a loaded tree equals the original.
        if not isinstance(other, TraceTree):
            return NotImplemented
        return self.__dict__ == other.__dict__

    __hash__ = None  # type: ignore[assignment]  # mutable, like every non-frozen model

    # -- queries ---------------------------------------------------------------

    def walk(self) -> Iterator[TraceSpan]:
        """Yield every span depth first, the root first and children in order."""
        for _, span in walk_with_depth(self.root):
            yield span

    def find_all(
        self,
        kind: str | None = None,
        name: str | None = None,
        status: SpanStatus | None = None,
        *,
        within: TraceSpan | str | None = None,
        **attributes: Any,
    ) -> list[TraceSpan]:
        """Return every span matching the filters, in walk order."""
        parents = self._parent_map() if within is not None else {}
        found = []
        for span in self.walk():
            if kind is not None and span.kind != kind:
                continue
            if name is not None and span.name != name:
                continue
            if status is not None and span.status != status:
                continue
            if any(span.attributes.get(k, _MISSING) != v for k, v in attributes.items()):
                continue
            if within is not None and not _has_ancestor(span, within, parents):
                continue
            found.append(span)
        return found

    def find(
        self,
        kind: str | None = None,
        name: str | None = None,
        status: SpanStatus | None = None,
        *,
        within: TraceSpan | str | None = None,
        **attributes: Any,
    ) -> TraceSpan | None:
        """Return the first span (walk order) matching the filters, or None."""
        matches = self.find_all(kind, name, status, within=within, **attributes)
        return matches[0] if matches else None

    def one(
        self,
        kind: str | None = None,
        name: str | None = None,
        status: SpanStatus | None = None,
        *,
        within: TraceSpan | str | None = None,
        **attributes: Any,
    ) -> TraceSpan:
        """Return the only span matching the filters.

        Raises:
            TraceAssertionError: none or several match; the message lists the
                matches (by path) and the outline of the whole trace.
        """
        matches = self.find_all(kind, name, status, within=within, **attributes)
        if len(matches) == 1:
            return matches[0]
        criteria = _describe_filters(kind, name, status, within, attributes)
        listing = "".join(f"\n  - {span_path(self.root, s)}" for s in matches)
        raise TraceAssertionError(
            f"expected exactly one span with {criteria}, found {len(matches)}{listing}\n"
            f"trace {self.trace_id} has these spans:\n{outline_text(self.root)}"
        )

    def span_by_id(self, span_id: str) -> TraceSpan | None:
        """Return the span with this id, or None."""
        return next((s for s in self.walk() if s.span_id == span_id), None)

    def parent(self, span: TraceSpan) -> TraceSpan | None:
        """Return the parent of ``span`` (None for the root).

        Raises:
            ValueError: ``span`` is not part of this tree.
        """
        parents = self._parent_map()
        if span.span_id not in parents:
            raise ValueError(f"span {span.span_id} ({span.label}) is not in trace {self.trace_id}")
        return parents[span.span_id]

    def ancestors(self, span: TraceSpan) -> list[TraceSpan]:
        """Return the ancestors of ``span``, nearest first, ending with the root.

        Raises:
            ValueError: ``span`` is not part of this tree.
        """
        chain = []
        current = self.parent(span)
        parents = self._parent_map()
        while current is not None:
            chain.append(current)
            current = parents.get(current.span_id)
        return chain

    def _parent_map(self) -> dict[str, TraceSpan | None]:
        parents: dict[str, TraceSpan | None] = {self.root.span_id: None}
        for span in self.walk():
            for child in span.children:
                parents[child.span_id] = span
        return parents

    # -- JSON ------------------------------------------------------------------

    def to_json(self, *, indent: int | None = 2) -> str:
        """Serialise to the trace file format (attribute values that are not JSON
        become their ``str``)."""
        try:
            return self.model_dump_json(indent=indent)
        except PydanticSerializationError:
            # An attribute that is not JSON, or a tree deeper than pydantic's
            # serializer goes (it stops at about 250 span levels, while a valid
            # trace may be thousands deep): the spans become dicts one by one.
            data, levels = self._plain()
            with recursion_room(2 * levels):  # an object and its children list per level
                return json.dumps(data, indent=indent, default=str)

    def _plain(self) -> tuple[dict[str, Any], int]:
        """The tree as plain data, span by span (no recursion), and its depth in spans."""

        def plain(span: TraceSpan) -> dict[str, Any]:
            return {**span.model_dump(exclude={"children"}), "children": []}

        top = plain(self.root)
        stack = [(top, self.root, 1)]
        levels = 1
        while stack:
            out, span, level = stack.pop()
            levels = max(levels, level)
            for child in span.children:
                converted = plain(child)
                out["children"].append(converted)
                stack.append((converted, child, level + 1))
        data = self.model_dump(exclude={"root"})
        ordered = {name: top if name == "root" else data[name] for name in type(self).model_fields}
        return ordered, levels

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str | None = None) -> TraceTree:
        """Parse and validate a trace document.

        The JSON Schema check is skipped for a document this process's
        ``FileTraceRecorder`` wrote byte for byte (:mod:`harness.tracing._written`).

        Raises:
            TraceFormatError: not JSON, another schema version, or a schema violation.
        """
        where = f"trace {source}" if source else "trace document"
        document = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
        written = was_written(document)  # a document this process wrote is valid already
        if written and json_depth(document) <= FAST_DEPTH:
            # Shallow enough for one pass of pydantic's parser and validators: 0.05 ms
            # against 0.13 ms for a 6-span trace, read two or three times per eval row.
            with contextlib.suppress(ValidationError):
                return cls.model_validate_json(document)
        try:
            data = load_json(document, max_depth=TRACE_MAX_DEPTH, source=where)
        except JsonTooDeepError as exc:
            raise TraceFormatError(f"{exc}; re-run to record it again") from exc
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError
            raise TraceFormatError(
                f"{where} is not valid JSON ({exc}); the file is corrupt or truncated, "
                "re-run to record it again"
            ) from exc
        if not written:
            validate_trace_document(data, source=source)
        try:
            return cls.model_validate({**data, "root": _spans_from_dicts(data["root"])})
        except ValidationError as exc:
            raise TraceFormatError(f"{where} is not a valid trace: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path) -> TraceTree:
        """Read a trace file; ``tree.path`` is set to it.

        Raises:
            TracingError: the file cannot be read.
            TraceFormatError: the content is not a valid trace.
        """
        file = Path(path)
        try:
            raw = file.read_bytes()
        except OSError as exc:
            raise TracingError(f"cannot read trace file {file}: {exc.strerror or exc}") from exc
        tree = cls.from_json(raw, source=str(file))
        tree.path = file
        return tree


def _spans_from_dicts(root: dict[str, Any]) -> TraceSpan:
    """Validate span by span, without recursion: a valid trace may be thousands of
    spans deep, past what one nested ``model_validate`` accepts (255 levels)."""
    top = TraceSpan.model_validate({**root, "children": []})
    stack = [(top, root["children"])]
    while stack:
        parent, children = stack.pop()
        for child in children:
            span = TraceSpan.model_validate({**child, "children": []})
            parent.children.append(span)
            stack.append((span, child["children"]))
    return top


def _has_ancestor(
    span: TraceSpan, within: TraceSpan | str, parents: dict[str, TraceSpan | None]
) -> bool:
    current = parents.get(span.span_id)
    while current is not None:
        if isinstance(within, TraceSpan):
            if current.span_id == within.span_id:
                return True
        elif within in (current.kind, current.label):
            return True
        current = parents.get(current.span_id)
    return False


def _describe_filters(
    kind: str | None,
    name: str | None,
    status: str | None,
    within: TraceSpan | str | None,
    attributes: dict[str, Any],
) -> str:
    named = (("kind", kind), ("name", name), ("status", status))
    parts = [f"{key}={value!r}" for key, value in named if value is not None]
    if within is not None:
        parts.append(f"within={within.label if isinstance(within, TraceSpan) else within!r}")
    parts.extend(f"{key}={value!r}" for key, value in attributes.items())
    return ", ".join(parts) or "no filter"
