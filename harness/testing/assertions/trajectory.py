"""``assert_trajectory``: a run's tool calls against the expected ones, in agentevals' terms.

Works on every trace harness builds: a run of harness's runtime (the ``trace``
fixture, a ``TraceTree`` or a span), and the traffic trace of an agent harness
did not build (the ``trace`` fixture in an ``llm_cassette`` test, or the
``llm_cassette`` fixture itself, or ``trace_from_cassette(path)``)::

    assert_trajectory(trace, [
        {"name": "read", "args": {"path": "a.txt"}},
        ("edit", {"path": "a.txt"}),
        "write",                                  # any arguments
    ], match="superset", args="superset", per_tool={"edit": ["path"]})

The trajectory is the trace's ``tool.call`` spans in order, sub-agents' calls
included where they ran (pass a span to check one part). Output tools
(``harness.core.output_tools``: pydantic-ai's ``final_result``, smolagents'
``final_answer``) are the answer, not calls, and are left out unless
``include_output_tools`` is set. Modes: ``harness.testing.assertions.trajectory_match``.

Arguments: a metadata trace keeps only their hash, which decides ``exact``;
the other modes need the values, which a replay-mode trace keeps, and which
``assert_trajectory(llm_cassette, ...)`` always has (it reads the test's traffic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from harness.core import ConfigurationError, TraceAssertionError
from harness.core.output_tools import is_output_tool
from harness.testing.assertions.trace_query import TraceSource, root_span
from harness.testing.assertions.trajectory_match import (
    ArgsMode,
    ArgsRule,
    ArgumentsUnavailable,
    Call,
    Policy,
    TrajectoryMode,
    arguments_hash,
    explain_mismatch,
    match_trajectory,
)
from harness.tracing import TraceSpan, TraceTree

__all__ = ["assert_trajectory", "expected_calls", "trajectory_calls", "trajectory_failure"]

# A trace built here for its arguments keeps them whole: it is never written anywhere.
_WHOLE = 1 << 30


def assert_trajectory(
    trace: TraceSource | Any,
    expected: Iterable[Any],
    *,
    match: TrajectoryMode = "strict",
    args: ArgsMode = "exact",
    per_tool: Mapping[str, ArgsRule] | None = None,
    include_output_tools: bool = False,
) -> None:
    """Assert that the tool calls of ``trace`` fit ``expected``.

    Args:
        trace: a trace tree, a span (its subtree), the ``trace`` fixture, or the
            ``llm_cassette`` fixture (its traffic, arguments included).
        expected: the calls, in order: ``{"name": ..., "args": {...}}`` (``args``
            optional: without it any arguments match), ``(name, args)``, ``(name,)``
            or a bare name.
        match: ``strict``, ``unordered``, ``subset``, ``superset`` or ``in_order``
            (see ``harness.testing.assertions.trajectory_match``).
        args: ``exact``, ``ignore``, ``subset`` or ``superset``: the actual call's
            arguments relative to the expected ones.
        per_tool: per tool name, a mode, a list of keys that must be equal, or a
            function ``(actual_args, expected_args) -> bool``.
        include_output_tools: keep output tools (the answer) in the trajectory.

    Raises:
        TraceAssertionError: the trajectory does not fit; the message aligns both,
            names the first difference and says how to fix it.
        ConfigurationError: a bad mode or expected call, or arguments the trace
            does not keep.
    """
    failure = trajectory_failure(
        trace,
        expected,
        match=match,
        args=args,
        per_tool=per_tool,
        include_output_tools=include_output_tools,
    )
    if failure is not None:
        raise TraceAssertionError(failure)


def trajectory_failure(
    trace: TraceSource | Any,
    expected: Iterable[Any],
    *,
    match: TrajectoryMode = "strict",
    args: ArgsMode = "exact",
    per_tool: Mapping[str, ArgsRule] | None = None,
    include_output_tools: bool = False,
) -> str | None:
    """``assert_trajectory``'s failure message, or None when the trajectory fits.

    ``trace`` may also be a list of the calls made, in any form ``expected``
    takes (the case runner passes the ``ToolCall`` values of its request log).

    Raises:
        ConfigurationError: as ``assert_trajectory``.
    """
    policy = Policy(args, dict(per_tool or {}))
    wanted = expected_calls(expected)
    actual = trajectory_calls(trace, include_output_tools=include_output_tools)
    try:
        if match_trajectory(wanted, actual, match, policy):
            return None
        detail = explain_mismatch(wanted, actual, match, policy)
    except ArgumentsUnavailable as exc:
        raise ConfigurationError(_unavailable(exc, _is_traffic(trace))) from None
    return (
        f"trajectory does not match (match={match!r}, args={args!r}): "
        f"{len(wanted)} call(s) expected, {len(actual)} made\n{detail}"
    )


def _unavailable(exc: ArgumentsUnavailable, traffic: bool) -> str:
    where = (
        "pass the llm_cassette fixture instead of the trace (it reads the arguments from "
        "the traffic)"
        if traffic
        else "build the app with trace_mode='replay' (make_harness_app(trace_mode='replay') "
        "or HARNESS_TRACE_MODE=replay)"
    )
    return (
        f"assert_trajectory: comparing {exc.call.name}'s arguments ({exc.rule}) needs their "
        f"values, and this trace keeps only their hash (a metadata trace): {where}, or "
        "compare with args='exact' or 'ignore'"
    )


def _is_traffic(source: Any) -> bool:
    """Whether ``source`` is a traffic trace (rebuilt from HTTP), not harness's own run."""
    if isinstance(source, list | tuple):
        return False
    if callable(getattr(source, "exchanges", None)):
        return True  # the llm_cassette fixture
    return root_span(source).attributes.get("source") == "traffic"


# -- expected calls ------------------------------------------------------------------


def expected_calls(expected: Iterable[Any]) -> list[Call]:
    """``expected`` as calls (see ``assert_trajectory`` for the accepted forms).

    Raises:
        ConfigurationError: an item is none of them, naming its position.
    """
    if isinstance(expected, str | bytes | Mapping):
        raise ConfigurationError(
            "assert_trajectory: expected is a list of calls, e.g. "
            '[{"name": "read", "args": {"path": "a.txt"}}]'
        )
    return [_expected(number, item) for number, item in enumerate(expected, 1)]


def _expected(number: int, item: Any) -> Call:
    name: Any = None
    arguments: Any = None
    if isinstance(item, str):
        name = item
    elif isinstance(item, Mapping):
        unknown = sorted(set(item) - {"name", "args", "arguments"})
        if unknown:
            raise ConfigurationError(
                f"assert_trajectory: expected call {number} has unknown key(s) {unknown}; "
                "a call is {'name': ..., 'args': {...}}"
            )
        name, arguments = item.get("name"), item.get("args", item.get("arguments"))
    elif isinstance(item, tuple | list) and 1 <= len(item) <= 2:
        name, arguments = item[0], item[1] if len(item) == 2 else None
    elif hasattr(item, "name") and hasattr(item, "arguments"):  # a ToolCall or CallSpec
        name, arguments = item.name, item.arguments
    if not isinstance(name, str) or not name:
        raise ConfigurationError(
            f"assert_trajectory: expected call {number} is {item!r}; give a tool name, "
            "(name, args) or {'name': ..., 'args': {...}}"
        )
    if arguments is not None and not isinstance(arguments, Mapping):
        raise ConfigurationError(
            f"assert_trajectory: expected call {number} ({name}) has args "
            f"{arguments!r}; args are a mapping of argument names to values"
        )
    return Call(name, dict(arguments) if arguments is not None else None)


# -- actual calls --------------------------------------------------------------------


def trajectory_calls(
    source: TraceSource | Any, *, include_output_tools: bool = False
) -> list[Call]:
    """The tool calls of ``source`` in the order they were made (see the module docstring)."""
    if isinstance(source, list | tuple):  # calls already read, in any form ``expected`` takes
        read = [_expected(number, item) for number, item in enumerate(source, 1)]
        found = [Call(c.name, c.args or {}, output=is_output_tool(c.name)) for c in read]
        return [call for call in found if include_output_tools or not call.output]
    root = root_span(_with_arguments(source))
    calls: list[Call] = []
    _walk(root, calls, include_output_tools)
    return calls


def _with_arguments(source: Any) -> Any:
    """A tree with the arguments for an ``llm_cassette`` fixture; anything else as is."""
    exchanges: Callable[[], Any] | None = getattr(source, "exchanges", None)
    if isinstance(source, TraceTree | TraceSpan) or not callable(exchanges):
        return source
    from harness.testing.cassettes.http_exchanges import http_exchanges, traffic_module

    built: TraceTree = traffic_module().trace_from_exchanges(
        http_exchanges(exchanges()), mode="replay", max_payload_chars=_WHOLE
    )
    return built


def _walk(span: TraceSpan, calls: list[Call], outputs: bool) -> None:
    # An answer's output tool goes after the tool calls of its own step.
    pending: list[Call] = []
    for child in span.children:
        if child.kind == "llm.call":
            calls.extend(pending)
            pending = _output_asks(child) if outputs else []
        elif child.kind == "tool.call":
            output = is_output_tool(child.name)
            if outputs or not output:
                calls.append(_actual(child.name, child, output))
        _walk(child, calls, outputs)
    calls.extend(pending)


def _output_asks(span: TraceSpan) -> list[Call]:
    """The output tools an ``llm.call`` of a traffic trace asked for (no span of their own)."""
    listed = span.attributes.get("tool_calls")
    if not isinstance(listed, list):
        return []
    return [_listed(entry) for entry in listed if isinstance(entry, dict) and entry.get("output")]


def _listed(entry: dict[str, Any]) -> Call:
    arguments = entry.get("arguments")
    digest = entry.get("argument_hash")
    return _call(str(entry.get("name")), arguments, digest, output=True)


def _actual(name: str, span: TraceSpan, output: bool) -> Call:
    payload = span.attributes.get("payload")
    arguments = payload.get("arguments") if isinstance(payload, dict) else None
    return _call(name, arguments, span.attributes.get("argument_hash"), output=output)


def _call(name: str, arguments: Any, digest: Any, *, output: bool) -> Call:
    digest = digest if isinstance(digest, str) else None
    if not isinstance(arguments, dict):
        return Call(name, None, digest, output=output)
    return Call(name, arguments, digest, faithful=_faithful(arguments, digest), output=output)


def _faithful(arguments: Mapping[str, Any], hashed: str | None) -> bool:
    """Whether the kept arguments are those sent (redaction and truncation change them)."""
    return hashed is None or arguments_hash(arguments) == hashed
