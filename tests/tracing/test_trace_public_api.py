"""The exported surface of harness.tracing."""

from __future__ import annotations

import importlib

import pytest

import harness.tracing

MODULES = [
    "_catalog",
    "_errors",
    "_modes",
    "_null",
    "otel",
    "outline",
    "_recorders",
    "_redaction",
    "_render",
    "_schema",
    "_scope",
    "_spans",
    "_tracer",
    "_tree",
]


def _isort_style(name: str) -> tuple[int, str]:
    # ruff RUF022 order: CONSTANTS, then Classes, then functions
    return (0 if name.isupper() else 1 if name[0].isupper() else 2, name)


@pytest.mark.parametrize("module", ["harness.tracing", *(f"harness.tracing.{m}" for m in MODULES)])
def test_all_is_sorted_and_resolves(module: str) -> None:
    loaded = importlib.import_module(module)
    names = loaded.__all__
    assert names == sorted(names, key=_isort_style)
    for name in names:
        assert hasattr(loaded, name), f"{module}.{name}"


def test_the_engine_api_is_exported() -> None:
    expected = {
        "FileTraceRecorder",
        "MemoryTraceRecorder",
        "NullTracer",
        "TraceEvent",
        "TraceMode",
        "TraceRecorder",
        "TraceSpan",
        "TraceState",
        "TraceTree",
        "Tracer",
        "hash_text",
        "redact",
        "validate_trace_document",
    }
    assert expected <= set(harness.tracing.__all__)
