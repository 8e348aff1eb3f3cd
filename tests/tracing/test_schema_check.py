"""The quick schema walk agrees with jsonschema on the trace schema.

Documents are built valid, then broken at random places (a key dropped or
added, a value swapped for another type, a bad timestamp); the walk must give
jsonschema's verdict on the whole document every time. Integral floats and NaN
are left out: there the walk says no on purpose and jsonschema decides.
"""

from __future__ import annotations

import copy
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from harness.tracing._errors import TraceFormatError
from harness.tracing._schema import load_trace_schema, validate_trace_document
from harness.tracing._schema_check import conforms as _conforms
from harness.tracing._schema_check import rules_of

REFERENCE = Draft202012Validator(load_trace_schema())
RULES = rules_of(load_trace_schema())


def conforms(doc: Any) -> bool:
    return _conforms(doc, RULES)


STAMP = "2026-12-01T10:00:00.123Z"

# What the walk's rules cover; a schema that uses more must teach the walk first.
COVERED = {
    "$schema", "$id", "$defs", "$ref", "title", "description", "type", "required",
    "additionalProperties", "properties", "items", "enum", "const", "minLength",
    "minimum", "pattern", "oneOf", "if", "then", "else",
}  # fmt: skip

VALUES = [
    None, True, False, 0, 1, 2, -1, 1.5, -0.5, "", "x", "ok", "error", "metadata", "off",
    "replay", STAMP, "2026-12-01T10:00:00+01:00", "2026-12-01T10:00:00Z\n",
    "\u0662026-12-01T10:00:00Z", "2026-12-01 10:00:00", "2026-12-01T10:00Z", [], {}, [{}],
]  # fmt: skip


def _keywords(node: Any, found: set[str]) -> set[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            found.add(key)
            if key in ("properties", "$defs"):  # names, not keywords
                for sub in value.values():
                    _keywords(sub, found)
            elif key not in ("enum", "const", "required"):
                _keywords(value, found)
    elif isinstance(node, list):
        for item in node:
            _keywords(item, found)
    return found


def test_the_schema_uses_only_what_the_walk_covers() -> None:
    assert _keywords(load_trace_schema(), set()) == COVERED


def _span(draw: st.DrawFn, depth: int, parent: str | None, counter: list[int]) -> dict[str, Any]:
    counter[0] += 1
    span_id = f"s{counter[0]}"
    children = []
    if depth < 3:
        for _ in range(draw(st.integers(0, 2))):
            children.append(_span(draw, depth + 1, span_id, counter))
    events = [
        {"name": "e", "at": STAMP, "attributes": {"n": 1}} for _ in range(draw(st.integers(0, 2)))
    ]
    return {
        "span_id": span_id,
        "parent_id": parent,
        "trace_id": "t1",
        "kind": draw(st.sampled_from(["agent.run", "llm.call", "tool.call"])),
        "name": "n",
        "started_at": STAMP,
        "ended_at": draw(st.sampled_from([STAMP, None])),
        "duration_ms": draw(st.sampled_from([0, 1.25, None, 7])),
        "sequence": counter[0] - 1,
        "status": draw(st.sampled_from(["ok", "error"])),
        "attributes": {"a": [1, {"b": None}]},
        "events": events,
        "children": children,
    }


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    version = draw(st.sampled_from([1, 2]))
    doc: dict[str, Any] = {
        "schema_version": version,
        "trace_id": "t1",
        "session_key": draw(st.sampled_from(["s", None])),
        "created_at": STAMP,
        "root": _span(draw, 0, None, [0]),
        "metadata": {"mode": "act"},
    }
    if version == 2:
        doc["capture_mode"] = draw(st.sampled_from(["metadata", "replay", "off"]))
    elif draw(st.booleans()):
        doc["capture_mode"] = None
    return doc


def _plain() -> dict[str, Any]:
    """A valid two-span document."""
    child = {
        "span_id": "s2", "parent_id": "s1", "trace_id": "t1", "kind": "llm.call",
        "name": "llm.call", "started_at": STAMP, "ended_at": STAMP, "duration_ms": 3,
        "sequence": 1, "status": "ok", "attributes": {}, "events": [], "children": [],
    }  # fmt: skip
    root = {**child, "span_id": "s1", "parent_id": None, "kind": "agent.run", "sequence": 0}
    return {
        "schema_version": 2, "capture_mode": "metadata", "trace_id": "t1", "session_key": None,
        "created_at": STAMP, "root": {**root, "children": [child]}, "metadata": {},
    }  # fmt: skip


def _places(node: Any, found: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    if isinstance(node, dict):
        for key in list(node):
            found.append((node, key))
            _places(node[key], found)
    elif isinstance(node, list):
        for index, item in enumerate(node):
            found.append((node, index))
            _places(item, found)
    return found


@pytest.mark.deep  # hypothesis against jsonschema: seconds
@settings(max_examples=150, deadline=None)
@given(
    doc=documents(),
    breaks=st.lists(
        st.tuples(
            st.integers(0, 10_000),
            st.sampled_from(["replace", "drop", "add"]),
            st.sampled_from(VALUES),
        ),
        max_size=3,
    ),
)
def test_the_walk_gives_jsonschemas_verdict(
    doc: dict[str, Any], breaks: list[tuple[int, str, Any]]
) -> None:
    for where, how, value in breaks:
        places = _places(doc, [])
        holder, key = places[where % len(places)]
        value = copy.deepcopy(value)
        if how == "replace":
            holder[key] = value
        elif how == "drop":
            del holder[key]
        elif isinstance(holder, dict):
            holder["extra_key"] = value
        else:
            holder.append(value)
    assert conforms(doc) == REFERENCE.is_valid(doc)


@pytest.mark.parametrize(
    ("path", "value"),
    [(("schema_version",), 2.0), (("root", "sequence"), 0.0), (("root", "duration_ms"), math.nan)],
)
def test_where_the_walk_is_unsure_jsonschema_decides(path: tuple[str, ...], value: Any) -> None:
    doc = _plain()
    assert conforms(doc)
    holder = doc
    for part in path[:-1]:
        holder = holder[part]
    holder[path[-1]] = value
    assert not conforms(doc)
    assert REFERENCE.is_valid(doc)
    validate_trace_document(doc)  # accepted, as before the walk


def test_a_broken_document_still_gets_jsonschemas_words() -> None:
    doc = _plain()
    doc["root"]["status"] = "maybe"
    with pytest.raises(TraceFormatError, match=r"at root\.status: 'maybe' is not one of"):
        validate_trace_document(doc, source="t.json")


def _fields(doc: dict[str, Any]) -> list[tuple[str, ...]]:
    top = [(key,) for key in doc if key != "root"]
    span = [("root", key) for key in doc["root"]]
    child = [("root", "children", 0, key) for key in doc["root"]["children"][0]]
    event = [("root", "events", 0, key) for key in ("name", "at", "attributes")]
    return [*top, *span, *child, *event, ("root", "events", 0), ("root", "children", 0)]


def test_every_field_and_every_value_one_at_a_time() -> None:
    """Each field of each part, swapped for each value or dropped: jsonschema's verdict."""
    checked = 0
    for path in _fields(_with_event(_plain())):
        for value in [*VALUES, _ABSENT]:
            doc = _with_event(_plain())
            holder: Any = doc
            for part in path[:-1]:
                holder = holder[part]
            if value is _ABSENT:
                del holder[path[-1]]
            else:
                holder[path[-1]] = copy.deepcopy(value)
            assert conforms(doc) == REFERENCE.is_valid(doc), (path, value)
            checked += 1
    assert checked > 800


_ABSENT = object()


def _with_event(doc: dict[str, Any]) -> dict[str, Any]:
    doc["root"]["events"] = [{"name": "e", "at": STAMP, "attributes": {}}]
    return doc
