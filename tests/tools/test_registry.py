"""The middleware chain: order, short-circuit, and allow/deny policy."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from harness.core import ConfigurationError, ToolCall, ToolError
from harness.tools import (
    ToolExecutionContext,
    ToolExecutionResult,
    ToolExecutionStatus,
    ToolInput,
    ToolNext,
    ToolPolicyMiddleware,
    ToolRegistry,
)


class Shout:
    name = "shout"
    description = "Upper-cases its text."
    parameters: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}

    def __init__(self) -> None:
        self.calls = 0

    def run(self, tool_input: ToolInput) -> str:
        self.calls += 1
        if tool_input.arguments.get("text") == "bad":
            raise ToolError("text may not be 'bad'", error_type="bad_text")
        return str(tool_input.arguments.get("text", "")).upper()


def _ctx(
    tool: Shout, tmp_path: Path, name: str = "shout", **arguments: Any
) -> ToolExecutionContext:
    call = ToolCall(name=name, arguments=arguments)
    return ToolExecutionContext(
        tool_call=call, tool=tool, tool_input=ToolInput(arguments=arguments, workdir=tmp_path)
    )


def test_middleware_runs_in_registration_order_and_returns_in_reverse(tmp_path: Path) -> None:
    events: list[str] = []

    def named(label: str):  # type: ignore[no-untyped-def]
        def middleware(ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
            events.append(f"in:{label}")
            result = nxt(ctx)
            events.append(f"out:{label}")
            return result

        return middleware

    tool = Shout()
    registry = ToolRegistry([tool])
    for label in ("a", "b", "c"):
        registry.use(named(label))
    result = registry.execute(_ctx(tool, tmp_path, text="hi"))
    assert result.observation == "HI"
    assert events == ["in:a", "in:b", "in:c", "out:c", "out:b", "out:a"]


def test_middleware_short_circuits_without_running_the_tool(tmp_path: Path) -> None:
    tool = Shout()
    registry = ToolRegistry([tool])
    seen: list[str] = []

    def blocker(ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        return ToolExecutionResult.denied("blocked")

    def later(ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        seen.append("later")
        return nxt(ctx)

    registry.use(blocker)
    registry.use(later)
    result = registry.execute(_ctx(tool, tmp_path, text="hi"))
    assert result.status is ToolExecutionStatus.DENIED
    assert tool.calls == 0 and seen == []


def test_middleware_added_after_first_execute_takes_effect(tmp_path: Path) -> None:
    tool = Shout()
    registry = ToolRegistry([tool])
    assert registry.execute(_ctx(tool, tmp_path, text="x")).observation == "X"
    registry.use(lambda ctx, nxt: ToolExecutionResult.denied("no"))
    assert registry.execute(_ctx(tool, tmp_path, text="x")).observation == "no"


def test_tool_error_becomes_an_error_result(tmp_path: Path) -> None:
    tool = Shout()
    result = ToolRegistry([tool]).execute(_ctx(tool, tmp_path, text="bad"))
    assert result.is_error and result.error_type == "bad_text"
    assert "may not be 'bad'" in result.observation


@pytest.mark.parametrize(
    ("allow", "deny", "expected"),
    [
        ((), (), ToolExecutionStatus.COMPLETED),
        (("shout",), (), ToolExecutionStatus.COMPLETED),
        (("other",), (), ToolExecutionStatus.DENIED),
        ((), ("shout",), ToolExecutionStatus.DENIED),
        (("shout",), ("shout",), ToolExecutionStatus.DENIED),
    ],
    ids=["no-lists", "allowed", "not-in-allowlist", "denied", "deny-beats-allow"],
)
def test_policy(
    tmp_path: Path, allow: tuple[str, ...], deny: tuple[str, ...], expected: Any
) -> None:
    tool = Shout()
    registry = ToolRegistry([tool])
    registry.use(ToolPolicyMiddleware(allow, deny))
    result = registry.execute(_ctx(tool, tmp_path, text="x"))
    assert result.status is expected
    assert tool.calls == (1 if expected is ToolExecutionStatus.COMPLETED else 0)


def test_duplicate_and_invalid_tool_names_are_refused() -> None:
    registry = ToolRegistry([Shout()])
    with pytest.raises(ConfigurationError, match="already registered"):
        registry.register(Shout())
    bad = Shout()
    bad.name = "no spaces"  # type: ignore[misc]
    with pytest.raises(ConfigurationError, match="invalid"):
        registry.register(bad)
