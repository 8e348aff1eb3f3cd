"""The trace file format, version 2, and its validation.

A trace file is one JSON object, written by ``FileTraceRecorder`` to
``<state_dir>/sessions/<session key or _no_session>/traces/<trace_id>.json``.
The JSON Schema (draft 2020-12) ships as ``harness/tracing/trace.schema.json``;
readers validate against it. Version 2 added ``capture_mode``; version 1 files
(without it) still load, with ``capture_mode`` None ("not recorded").

Top level:

``schema_version`` (int, 2; files of version 1 are read too)
    Format version. A change that old readers cannot read bumps it.
``capture_mode`` (``"metadata"`` or ``"replay"``; null or absent in version 1)
    How much the trace kept, see ``modes``: in ``metadata`` mode no payload text
    was stored, in ``replay`` mode ``payload`` attributes hold redacted payloads.
``trace_id`` (str)
    Random hex id of the run's trace; also the file name.
``session_key`` (str or null)
    The session the run belonged to; null for runs without a session.
``created_at`` (str)
    ISO-8601 UTC time the trace began.
``root`` (span)
    The root span, usually ``agent.run`` or ``approval.resume``.
``metadata`` (object)
    Free-form facts about the run given to ``begin_trace`` (e.g. mode, model).

Span:

``span_id`` (str)
    Id unique within the trace.
``parent_id`` (str or null)
    ``span_id`` of the parent; null only for the root.
``trace_id`` (str)
    Same as the top-level ``trace_id``.
``kind`` (str)
    What the span is: ``agent.run``, ``agent.step``, ``llm.call``, ``tool.call``,
    ``approval.pause``, ``subagent.run``, ``approval.resume``, ...
``name`` (str)
    Which one, e.g. the tool name of a ``tool.call``; equals ``kind`` otherwise.
``started_at`` / ``ended_at`` (str; ``ended_at`` may be null)
    ISO-8601 UTC begin and end times. A span still open when its trace ended
    is closed then, with status ``error`` and attribute ``unclosed: true``.
``duration_ms`` (number or null)
    Wall time in milliseconds, measured with a monotonic clock.
``sequence`` (int >= 0)
    Global begin order within the trace (root 0). Children are stored in this
    order, so concurrent tool calls appear in call order, not finish order.
``status`` ("ok" or "error")
    ``error`` when the work raised or was marked failed; then the attribute
    ``error_type`` holds the exception class name and, in replay mode only,
    ``error_message`` its text.
``attributes`` (object)
    JSON values. In metadata mode: names, counts, hashes (16 hex digits),
    timings, token usage; ``agent.run`` spans carry ``prompt_hash`` /
    ``answer_hash`` (``sha256:`` + 64 hex digits) and ``prompt_chars`` /
    ``answer_chars``. In replay mode also ``payload``: an object of
    redacted, truncated payloads (prompts, arguments, answers).
``events`` (array of event)
    Point events in time order: ``name`` (str), ``at`` (timestamp),
    ``attributes`` (object).
``children`` (array of span)
    Child spans in ``sequence`` order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from harness.tracing._errors import TraceFormatError
from harness.tracing._schema_check import SchemaRules, conforms, rules_of

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

__all__ = [
    "READABLE_SCHEMA_VERSIONS",
    "SCHEMA_FILE_NAME",
    "SCHEMA_VERSION",
    "load_trace_schema",
    "validate_trace_document",
]

SCHEMA_VERSION: Final = 2
READABLE_SCHEMA_VERSIONS: Final = (1, 2)
SCHEMA_FILE_NAME: Final = "trace.schema.json"


@cache
def _schema_text() -> str:
    return resources.files("harness.tracing").joinpath(SCHEMA_FILE_NAME).read_text("utf-8")


def load_trace_schema() -> dict[str, Any]:
    """Return (a fresh copy of) the JSON Schema of trace files."""
    schema: dict[str, Any] = json.loads(_schema_text())
    return schema


def validate_trace_document(data: Any, *, source: str | None = None) -> None:
    """Check that ``data`` (parsed JSON) is a trace document this harness can read.

    Args:
        data: the parsed JSON value.
        source: where it came from (a path), named in the error message.

    Raises:
        TraceFormatError: wrong ``schema_version`` or a schema violation; the message
            names the offending location, e.g. ``root.children[0].status``.
    """
    where = f"trace {source}" if source else "trace document"
    if not isinstance(data, dict):
        raise TraceFormatError(f"{where} is not a JSON object but {type(data).__name__}")
    version = data.get("schema_version")
    if version not in READABLE_SCHEMA_VERSIONS or isinstance(version, bool):
        readable = " and ".join(map(str, READABLE_SCHEMA_VERSIONS))
        raise TraceFormatError(
            f"{where} has schema_version {version!r}; this harness reads versions "
            f"{readable}. Re-record the run with this version of harness."
        )
    if conforms(data, _rules()):
        return  # the quick walk says yes only when the schema would too
    from jsonschema.exceptions import best_match

    for prefix, piece, validator in _pieces(data):
        error = best_match(validator.iter_errors(piece))
        if error is not None:
            location = _format_location([*prefix, *error.absolute_path]) or "(top level)"
            raise TraceFormatError(
                f"{where} does not match the trace schema at {location}: {error.message}"
            )


def _pieces(data: dict[str, Any]) -> Iterator[tuple[list[str | int], Any, Draft202012Validator]]:
    """The document, then every span below the root, each with its children cut off.

    One span at a time, without recursion: a valid trace may be thousands of
    spans deep, and jsonschema recurses per level (and took 13 s on 5,000).
    """
    top, spans = _cut_children(data.get("root"), ["root"])
    yield [], ({**data, "root": top} if "root" in data else data), _validator()
    while spans:
        path, span = spans.pop()
        piece, below = _cut_children(span, path)
        yield path, piece, _span_validator()
        spans.extend(reversed(below))


def _cut_children(
    span: Any, path: list[str | int]
) -> tuple[Any, list[tuple[list[str | int], Any]]]:
    if not isinstance(span, dict) or not isinstance(span.get("children"), list):
        return span, []  # the schema names what is wrong with it
    children = [([*path, "children", i], child) for i, child in enumerate(span["children"])]
    return {**span, "children": []}, children


@cache
def _rules() -> SchemaRules:
    return rules_of(load_trace_schema())


@cache
def _validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator  # lazy: only readers of trace files pay for it

    return Draft202012Validator(load_trace_schema())


@cache
def _span_validator() -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = load_trace_schema()
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/span"})


def _format_location(path: Any) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text
