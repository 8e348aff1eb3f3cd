"""The public surface: SPEC section 13 imports work and every package exports sorted names."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

PACKAGES = [
    "harness",
    "harness._speed",
    "harness.approval",
    "harness.cli",
    "harness.conversations",
    "harness.core",
    "harness.effects",
    "harness.engine",
    "harness.evals",
    "harness.integrations",
    "harness.integrations.feishu",
    "harness.mcp",
    "harness.providers",
    "harness.proxy",
    "harness.recording",
    "harness.session",
    "harness.settings",
    "harness.shell",
    "harness.simulator",
    "harness.subagent",
    "harness.testing",
    "harness.testing.adapters",
    "harness.testing.assertions",
    "harness.testing.cassettes",
    "harness.testing.plugin",
    "harness.testing.rows",
    "harness.tools",
    "harness.tools.builtin",
    "harness.tools.sandbox",
    "harness.tracing",
    "harness.traffic",
    "harness.view",
    "harness.wires",
    "harness.wires.anthropic",
    "harness.wires.bedrock",
    "harness.wires.gemini",
    "harness.wires.openai",
    "harness.wires.openai_responses",
]


def _isort_key(name: str) -> tuple[int, str]:
    # The order ruff's RUF022 keeps: CONSTANTS, then Classes, then functions.
    bare = name.strip("_")
    if bare.isupper():
        return (0, name)
    return (1, name) if bare[:1].isupper() else (2, name)


def test_every_sub_package_is_listed() -> None:
    import harness

    root = Path(harness.__file__).parent
    found = {
        ".".join(("harness", *init.parent.relative_to(root).parts))
        for init in root.rglob("__init__.py")
    }
    assert found == set(PACKAGES), "a sub-package without a checked __all__ (add it here)"


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_and_importable(name: str) -> None:
    module = importlib.import_module(name)
    exported = list(module.__all__)
    assert exported == sorted(exported, key=_isort_key), f"{name}.__all__ is not sorted"
    assert len(set(exported)) == len(exported)
    for item in exported:
        assert getattr(module, item) is not None, f"{name}.{item}"


def test_spec_entry_points() -> None:
    from harness import RunMode, RunResult, Settings, build_application
    from harness.core import LLMRequest, LLMResponse, Message, ToolCall, Usage
    from harness.providers import EchoProvider, FunctionProvider, ScriptedProvider, tool_call
    from harness.testing import assert_trace_shape, load_trace, normalize_trace

    assert all(
        callable(x)
        for x in (
            build_application,
            EchoProvider,
            FunctionProvider,
            ScriptedProvider,
            tool_call,
            load_trace,
            assert_trace_shape,
            normalize_trace,
        )
    )
    assert RunMode("plan-act") is RunMode.PLAN_ACT
    assert {"text", "stop_reason", "steps", "trace_path", "approval_id"} <= set(
        RunResult.model_fields
    )
    for model in (LLMRequest, LLMResponse, Message, ToolCall, Usage, Settings):
        assert model.model_config.get("frozen") is True


def test_spec_16_traffic_names() -> None:
    import dataclasses

    from harness.testing import HttpExchange, trace_from_cassette, trace_from_exchanges
    from harness.testing.adapters import AgentsTraceProcessor, from_otel_spans, from_smolagents

    assert all(
        callable(x)
        for x in (trace_from_cassette, trace_from_exchanges, from_otel_spans, from_smolagents)
    )
    assert dataclasses.is_dataclass(HttpExchange)
    assert HttpExchange.__dataclass_params__.frozen  # type: ignore[attr-defined]
    assert [f.name for f in dataclasses.fields(HttpExchange)] == [
        "method",
        "url",
        "request_headers",
        "request_body",
        "status",
        "response_headers",
        "response_body",
    ]
    assert callable(AgentsTraceProcessor)


def test_request_check_names() -> None:
    """Issue 43 item 5: checks on what was sent are public in harness.testing."""
    import dataclasses

    from harness.core import TraceAssertionError
    from harness.testing import (
        RequestAssertionError,
        RequestChecks,
        SentRequest,
        assert_requests,
        sent_requests,
        system_sha256,
    )

    assert all(callable(x) for x in (assert_requests, sent_requests, system_sha256))
    assert issubclass(RequestAssertionError, TraceAssertionError)
    assert {"model", "effort", "temperature", "system_sha256", "tools"} <= set(dir(RequestChecks))
    assert {"stable_prefix", "complete_history", "at", "where"} <= set(dir(RequestChecks))
    fields = {f.name for f in dataclasses.fields(SentRequest)}
    assert {"model", "system", "messages", "tools", "temperature", "effort"} <= fields


def test_spec_18_trajectory_names() -> None:
    import harness.testing
    from harness.testing import assert_trajectory

    assert callable(assert_trajectory)
    assert "assert_trajectory" in harness.testing.__all__


def test_error_tree() -> None:
    from harness.core import (
        ApprovalError,
        CassetteError,
        ConfigurationError,
        HarnessError,
        ProviderError,
        ToolError,
        TraceAssertionError,
    )

    for error in (ConfigurationError, ProviderError, ToolError, ApprovalError, CassetteError):
        assert issubclass(error, HarnessError)
    assert issubclass(TraceAssertionError, AssertionError)
