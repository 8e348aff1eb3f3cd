"""The trace file schema: shipped, draft 2020-12, in step with the models, lazy."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

import harness.tracing
from harness.tracing import (
    SCHEMA_VERSION,
    TraceEvent,
    TraceFormatError,
    TraceSpan,
    TraceTree,
    load_trace_schema,
    validate_trace_document,
)

from .conftest import build_run


def test_schema_is_a_valid_draft_2020_12_schema_file_inside_the_package() -> None:
    shipped = Path(harness.tracing.__file__).parent / "trace.schema.json"
    schema = json.loads(shipped.read_text(encoding="utf-8"))
    assert schema == load_trace_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert SCHEMA_VERSION in schema["properties"]["schema_version"]["enum"]


@pytest.mark.parametrize(
    ("model", "schema_path"),
    [
        pytest.param(TraceTree, (), id="tree"),
        pytest.param(TraceSpan, ("$defs", "span"), id="span"),
        pytest.param(TraceEvent, ("$defs", "event"), id="event"),
    ],
)
def test_schema_fields_match_the_models(model: type, schema_path: tuple[str, ...]) -> None:
    node = load_trace_schema()
    for key in schema_path:
        node = node[key]
    assert set(node["properties"]) == set(model.model_fields)  # type: ignore[attr-defined]
    # capture_mode is required from version 2 only (an if/then in the schema).
    optional = {"capture_mode"} if model is TraceTree else set()
    assert set(node["required"]) == set(model.model_fields) - optional  # type: ignore[attr-defined]


def test_every_written_file_validates(tmp_path: Path) -> None:
    from harness.tracing import FileTraceRecorder, Tracer

    tracer = Tracer(FileTraceRecorder(tmp_path), mode="replay")
    for key in ("a", "b", None):
        tree = build_run(tracer, session_key=key)
        root = tracer.begin_trace("approval.resume", session_key=key)
        tracer.set_payload(root, "decision", {"approved": True, "token": "t"})
        tracer.begin_span("agent.step")  # left open on purpose
        tracer.end_trace(root)
        assert tree.path is not None
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 6
    for file in files:
        validate_trace_document(json.loads(file.read_text(encoding="utf-8")), source=str(file))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        pytest.param(lambda d: d.pop("root"), "'root' is a required property", id="missing-root"),
        pytest.param(lambda d: d.update(extra=1), "extra", id="unknown-field"),
        pytest.param(lambda d: d["root"].update(sequence=-1), r"root\.sequence", id="bad-sequence"),
        pytest.param(lambda d: d.update(created_at="yesterday"), "created_at", id="bad-time"),
    ],
)
def test_validation_errors_name_the_problem(mutate: object, message: str) -> None:
    data = json.loads(build_run(harness.tracing.Tracer()).to_json())
    mutate(data)  # type: ignore[operator]
    with pytest.raises(TraceFormatError, match=message):
        validate_trace_document(data)


@pytest.mark.deep
def test_importing_tracing_does_not_import_jsonschema_or_deepdiff() -> None:
    code = (
        "import sys, harness.tracing, harness.testing.assertions.trace_assertions;"
        "print(sorted(m for m in ('jsonschema', 'deepdiff') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
