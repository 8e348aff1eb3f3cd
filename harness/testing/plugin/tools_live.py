"""``--harness-tools live``: the model replayed, the tools run for real, a named divergence.

In this mode ``make_harness_app`` starts the MCP servers live (their cassette is
neither read nor written) and runs the builtin tools against the workspace as
always, while the model answers from its cassette. Each tool result the agent
sends back is compared with the one the recorded run sent: the model cassette's
recorded request bodies hold every tool result of the recording, decoded per
wire by ``harness.traffic``, so one comparison covers MCP and builtin tools
alike, whatever the wire. What is compared is the text the model saw (an MCP
result as the runtime turned it into an observation): a change the model could
not see is no divergence.

An agent on another framework gets its MCP servers from the ``mcp_cassette``
fixture: in this mode its stand-ins relay to the real servers and compare each
live ``tools/call`` answer with the recorded answer to the same request in the
MCP cassette (:mod:`harness.mcp._live`), with no need of the model's request
bodies; the first difference is reported in the same form (there the result
is the server's answer as text, since what the model saw is the framework's).

The run is not stopped at the divergence: the live result goes to the model,
and the replayed model then usually misses on its next request (that request
carries the new result). The test's failure report leads with the divergence,
the tool that changed, and keeps what followed (the miss) below it as its
consequence. A test that passes anyway (it swallowed the miss) still
fails: its tool changed.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from harness.app import Application
    from harness.core.messages import Message
    from harness.mcp import ResultChange
    from harness.providers import RequestLoggingProvider
    from harness.testing.cassettes.tool_calls import RecordedToolCall

__all__ = [
    "ToolDivergence",
    "first_divergence",
    "lead_with_divergence",
    "watch_app",
    "watch_stand_ins",
]

_SHOWN = 300  # characters of a result shown in full on its line
_DIFF_LINES = 20


@dataclass(frozen=True, slots=True)
class ToolDivergence:
    """The first tool result of a live-tools run that differs from the recorded one.

    Attributes:
        tool: the name the model called (``<server>__<tool>`` for an MCP tool).
        server: the MCP server, or None for a builtin (or user) tool.
        server_tool: the tool's own name on its server (``tool`` for a builtin).
        arguments: the call's arguments (the replayed model's, so the recorded ones).
        recorded: the result the recorded run sent to the model.
        live: the result this run sent.
    """

    tool: str
    server: str | None
    server_tool: str
    arguments: Any
    recorded: str
    live: str

    def report(self) -> str:
        """The failure text: which tool, which call, what it answered then and now."""
        where = (
            f"MCP server {self.server!r}, tool {self.server_tool!r}"
            if self.server is not None
            else f"builtin tool {self.tool!r}"
        )
        lines = [
            f"ToolDivergence: {where} answered differently from the recording "
            "(--harness-tools live): the tool changed, not the model",
            f"  arguments: {_json(self.arguments)}",
            f"  recorded:  {_short(self.recorded)}",
            f"  live:      {_short(self.live)}",
            "  diff (recorded -> live):",
        ]
        diff = difflib.unified_diff(
            self.recorded.splitlines(), self.live.splitlines(), "recorded", "live", lineterm="", n=1
        )
        shown = [line for line in diff if not line.startswith(("---", "+++"))]
        lines += [f"    {line}" for line in shown[:_DIFF_LINES]]
        if len(shown) > _DIFF_LINES:
            lines.append(f"    ... ({len(shown) - _DIFF_LINES} more diff lines)")
        return "\n".join(lines)


def _json(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _short(text: str) -> str:
    return repr(text) if len(text) <= _SHOWN else repr(text[:_SHOWN]) + f" ... ({len(text)} chars)"


@dataclass(frozen=True, slots=True)
class _LiveResult:
    call_id: str
    name: str
    arguments: Any
    content: str


def _sent_results(messages: Sequence[Message]) -> list[_LiveResult]:
    """The tool results a request sends: the tool messages after its last assistant turn.

    Each request repeats the conversation so far; only its trailing results are
    new (they answer the previous response's calls).
    """
    last = max((i for i, m in enumerate(messages) if m.role.value == "assistant"), default=-1)
    if last < 0:
        return []
    asked = {call.id: call for call in messages[last].tool_calls}
    found = []
    for message in messages[last + 1 :]:
        if message.role.value != "tool" or message.tool_call_id not in asked:
            continue
        call = asked[message.tool_call_id]
        found.append(_LiveResult(call.id, call.name, call.arguments, message.content))
    return found


def first_divergence(
    recorded: Sequence[RecordedToolCall],
    requests: Sequence[Any],
    mcp_names: dict[str, tuple[str, str]] | None = None,
) -> ToolDivergence | None:
    """The first live result (in ``requests``, ``LLMRequest`` values) unlike its recording.

    A live result is paired with the recorded call of the same id (the replayed
    model gives the recorded ids), the n-th live use of an id with its n-th
    recorded one. A call the recording never answered has nothing to differ from.
    """
    from harness.tracing import redact_text

    queues: dict[str, list[RecordedToolCall]] = {}
    for call in recorded:
        queues.setdefault(call.call_id, []).append(call)
    names = mcp_names or {}
    for request in requests:
        for live in _sent_results(request.messages):
            waiting = queues.get(live.call_id)
            then = waiting.pop(0) if waiting else None
            # Redacted as the recorded side is (the traffic trace's payloads), so no
            # secret of a live result reaches the report.
            now = redact_text(live.content)
            if then is None or then.result is None or then.result == now:
                continue
            server, own = names.get(live.name, (None, live.name))
            return ToolDivergence(live.name, server, own, live.arguments, then.result, now)
    return None


@dataclass
class _Watch:
    """The live-tools runs of one test: its apps' request logs and its model cassette,
    and the changes its ``mcp_cassette`` stand-ins saw."""

    cassette: Path | None
    apps: list[tuple[Application, RequestLoggingProvider]] = field(default_factory=list)
    stand_ins: list[Callable[[], list[ResultChange]]] = field(default_factory=list)


_WATCH_KEY = pytest.StashKey[_Watch]()


def watch_app(node: pytest.Item, app: Application, sent: Any, cassette: Path | None) -> None:
    """Compare ``app``'s tool results (``sent``: the provider that logs its requests)
    with the recording when the test's call is reported."""
    from harness.providers import RequestLoggingProvider

    if not isinstance(sent, RequestLoggingProvider) or cassette is None:
        return  # a scripted provider: no recording to compare with
    watch = node.stash.setdefault(_WATCH_KEY, _Watch(cassette))
    watch.apps.append((app, sent))


def watch_stand_ins(node: pytest.Item, changes: Callable[[], list[ResultChange]]) -> None:
    """Report the first of ``changes()`` (an ``mcp_cassette`` under tools live: its
    live answers unlike the recorded ones) when the test's call is reported."""
    watch = node.stash.setdefault(_WATCH_KEY, _Watch(None))
    watch.stand_ins.append(changes)


def _mcp_names(app: Application) -> dict[str, tuple[str, str]]:
    from harness.mcp import McpTool

    names = {}
    for name in app.registry.names:
        tool = app.registry.get(name)
        if isinstance(tool, McpTool):
            names[name] = (tool.info.server, tool.info.name)
    return names


def _divergence(watch: _Watch) -> ToolDivergence | None:
    return _runtime_divergence(watch) or _stand_in_divergence(watch)


def _stand_in_divergence(watch: _Watch) -> ToolDivergence | None:
    for changes in watch.stand_ins:
        for change in changes():
            return ToolDivergence(
                change.tool,
                change.server,
                change.tool,
                change.arguments,
                change.recorded,
                change.live,
            )
    return None


def _runtime_divergence(watch: _Watch) -> ToolDivergence | None:
    if watch.cassette is None or not watch.cassette.exists():
        return None
    from harness.testing.cassettes.tool_calls import tool_calls_from_exchanges
    from harness.traffic import exchanges_from_cassette

    # Every call: in harness's own runtime a tool named final_answer is a tool it ran.
    exchanges = exchanges_from_cassette(watch.cassette)
    recorded = tool_calls_from_exchanges(exchanges, include_output_tools=True)
    # One pass over every app's requests, in the order the apps were built: a
    # second app that reuses an id (a simulator's call_1) pairs with the second
    # recorded use of it, as it was recorded.
    requests = [request for _, log in watch.apps for request in log.requests]
    names = {name: own for app, _ in watch.apps for name, own in _mcp_names(app).items()}
    return first_divergence(recorded, requests, names)


def lead_with_divergence(item: pytest.Item, report: pytest.TestReport) -> None:
    """Make the call report of a live-tools test open with its first tool divergence."""
    from harness.testing.plugin.misses import HANDLE_KEY, REPORTED_KEY

    watch = item.stash.get(_WATCH_KEY, None)
    if watch is None or report.when != "call":
        return
    del item.stash[_WATCH_KEY]
    found = _divergence(watch)
    if found is None:
        return
    text = found.report()
    if report.failed and report.longrepr is not None:
        text += (
            "\n\nwhat followed from it (the replayed model was sent a result it was not "
            f"recorded with):\n{report.longrepr}"
        )
    report.outcome = "failed"
    report.longrepr = text
    handle = item.stash.get(HANDLE_KEY, None)
    if handle is not None and handle.miss is not None and REPORTED_KEY not in item.stash:
        item.stash[REPORTED_KEY] = handle.miss  # reported here: the teardown skips it
