"""A quick answer to "does this parsed trace match the trace schema?", when it does.

``jsonschema`` takes about 0.3 ms a span: ``harness view`` of a 1,000-row
report spent 2.5 s of its 6 s validating the rows' traces. ``conforms`` walks
the document once (no recursion) with the rules of ``trace.schema.json``, read
from the file itself: the required and allowed keys, the enums, the timestamp
pattern. It only ever says yes for a document the schema accepts; anything it
is unsure of (a float where an integer goes, a NaN, a key or type the rules do
not know) is a no, and the caller asks ``jsonschema``, which also words the
error. A test pins the schema's keywords to the ones these rules cover.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["SchemaRules", "conforms", "rules_of"]

_ABSENT = object()


@dataclass(frozen=True, slots=True)
class SchemaRules:
    """What ``conforms`` checks, read from the schema by ``rules_of``."""

    top_required: frozenset[str]
    top_allowed: frozenset[str]
    span_required: frozenset[str]
    span_allowed: frozenset[str]
    event_required: frozenset[str]
    event_allowed: frozenset[str]
    versions: tuple[int, ...]
    capture_modes: frozenset[str]
    statuses: frozenset[str]
    timestamp: re.Pattern[str]


def rules_of(schema: dict[str, Any]) -> SchemaRules:
    """The rules of ``trace.schema.json`` (as ``load_trace_schema`` returns it)."""
    defs = schema["$defs"]
    span, event = defs["span"], defs["event"]
    return SchemaRules(
        top_required=frozenset(schema["required"]),
        top_allowed=frozenset(schema["properties"]),
        span_required=frozenset(span["required"]),
        span_allowed=frozenset(span["properties"]),
        event_required=frozenset(event["required"]),
        event_allowed=frozenset(event["properties"]),
        versions=tuple(schema["properties"]["schema_version"]["enum"]),
        capture_modes=frozenset(
            mode for mode in schema["properties"]["capture_mode"]["enum"] if mode is not None
        ),
        statuses=frozenset(span["properties"]["status"]["enum"]),
        timestamp=re.compile(defs["timestamp"]["pattern"]),
    )


def conforms(data: Any, rules: SchemaRules) -> bool:
    """True only when ``data`` matches the schema ``rules`` came from; False: ask ``jsonschema``."""
    if type(data) is not dict or not _keys_fit(data, rules.top_required, rules.top_allowed):
        return False
    version = data["schema_version"]
    if type(version) is not int or version not in rules.versions:
        return False
    mode = data.get("capture_mode", _ABSENT)
    if version == 2:  # the schema's if/then: from version 2 a mode is required
        if type(mode) is not str or mode not in rules.capture_modes:
            return False
    elif mode is not _ABSENT and mode is not None:
        return False
    if not (
        _name(data["trace_id"])
        and (data["session_key"] is None or type(data["session_key"]) is str)
        and _stamp(data["created_at"], rules)
        and type(data["metadata"]) is dict
    ):
        return False
    spans = [data["root"]]
    while spans:
        span = spans.pop()
        if not _span_fits(span, rules):
            return False
        spans.extend(span["children"])
    return True


def _span_fits(span: Any, rules: SchemaRules) -> bool:
    if type(span) is not dict or not _keys_fit(span, rules.span_required, rules.span_allowed):
        return False
    duration, sequence, events = span["duration_ms"], span["sequence"], span["events"]
    if not (
        _name(span["span_id"])
        and (span["parent_id"] is None or type(span["parent_id"]) is str)
        and _name(span["trace_id"])
        and _name(span["kind"])
        and _name(span["name"])
        and _stamp(span["started_at"], rules)
        and (span["ended_at"] is None or _stamp(span["ended_at"], rules))
        and (duration is None or (type(duration) in (int, float) and duration >= 0))
        and type(sequence) is int
        and sequence >= 0
        and type(span["status"]) is str
        and span["status"] in rules.statuses
        and type(span["attributes"]) is dict
        and type(events) is list
        and type(span["children"]) is list
    ):
        return False
    return all(_event_fits(event, rules) for event in events)


def _event_fits(event: Any, rules: SchemaRules) -> bool:
    return (
        type(event) is dict
        and _keys_fit(event, rules.event_required, rules.event_allowed)
        and _name(event["name"])
        and _stamp(event["at"], rules)
        and type(event["attributes"]) is dict
    )


def _keys_fit(value: dict[str, Any], required: frozenset[str], allowed: frozenset[str]) -> bool:
    keys = value.keys()
    return required <= keys and keys <= allowed


def _name(value: Any) -> bool:
    return type(value) is str and len(value) > 0


def _stamp(value: Any, rules: SchemaRules) -> bool:
    return type(value) is str and rules.timestamp.search(value) is not None
