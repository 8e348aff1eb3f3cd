"""``evidence``: the model's side of an application's runs, read back for verdicts.

Eval verdicts read behaviour directly (the trace, the workspace, the session
store and the requests the model received), never "the cassette still
matched", so a runtime breakage fails an eval even after its cassette is
re-recorded. The ``evidence`` fixture of the plugin returns this class.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from harness.core import LLMRequest, LLMResponse, Message, Role, ToolCall
from harness.tracing import TraceTree

if TYPE_CHECKING:
    from harness.app import Application
    from harness.engine import RunResult

__all__ = ["Evidence"]


class Evidence:
    """The model's side of an application's runs: every request and answer, in order.

    ``make_harness_app`` wraps recorded providers in a ``RequestLoggingProvider``;
    its exchanges are what the model actually saw, whatever the trace says.
    """

    def __init__(self, app: Application) -> None:
        inner = getattr(app.provider, "inner", None)
        exchanges = getattr(inner, "exchanges", None)
        if exchanges is None:
            raise AssertionError(
                "evidence: the provider keeps no request log; build the app with "
                "make_harness_app so the recorded provider is wrapped"
            )
        self.exchanges: list[tuple[LLMRequest, LLMResponse | None]] = list(exchanges)

    @property
    def requests(self) -> list[LLMRequest]:
        return [request for request, _ in self.exchanges]

    def offered_tools(self) -> list[list[str]]:
        """The tool names each request offered the model, in request order."""
        return [[tool.name for tool in request.tools] for request in self.requests]

    def calls(self) -> list[ToolCall]:
        """Every tool call the model made, in answer order."""
        return [call for _, response in self.exchanges if response for call in response.tool_calls]

    def observations(self, calls: tuple[ToolCall, ...]) -> list[Message]:
        """The tool messages that answered ``calls``, as the next request sent them.

        Raises AssertionError unless they come right after the assistant turn
        that made the calls, one per call, in the model's call order.
        """
        ids = [call.id for call in calls]
        for request in self.requests:
            messages = list(request.messages)
            for at, message in enumerate(messages):
                if message.role is Role.ASSISTANT and [c.id for c in message.tool_calls] == ids:
                    answered = messages[at + 1 : at + 1 + len(ids)]
                    got = [m.tool_call_id for m in answered]
                    assert got == ids, (
                        f"verdict: observations came back in order {got}, the model called {ids}"
                    )
                    return answered
        raise AssertionError(f"verdict: no request answered the tool calls {ids}")

    def assert_observations_in_call_order(self, sentinel_of: Mapping[str, str]) -> int:
        """Each multi-call turn's observations follow call order and hold their file's
        sentinel (``sentinel_of`` maps a read path to the sentinel only that file has).
        Returns how many observations were checked."""
        checked = 0
        for _, response in self.exchanges:
            if response is None or len(response.tool_calls) < 2:
                continue
            answered = self.observations(response.tool_calls)
            for call, message in zip(response.tool_calls, answered, strict=True):
                expected = sentinel_of.get(str(call.arguments.get("path")))
                if expected is None:
                    continue
                others = [s for s in sentinel_of.values() if s != expected and s in message.content]
                assert expected in message.content and not others, (
                    f"verdict: the observation for {call.name}({call.arguments}) does not hold "
                    f"its own file's sentinel {expected} (holds {others})"
                )
                checked += 1
        return checked

    def assert_read_saw(self, path: str, sentinel: str) -> None:
        """A ``read`` of ``path`` succeeded and its observation held ``sentinel``: the
        value the model used later came from that read, not from anywhere else."""
        for _, response in self.exchanges:
            if response is None:
                continue
            answered = [c for c in response.tool_calls if c.name == "read"]
            if not any(c.arguments.get("path") == path for c in answered):
                continue
            for call, message in zip(
                response.tool_calls, self.observations(response.tool_calls), strict=True
            ):
                if call.name == "read" and call.arguments.get("path") == path:
                    assert sentinel in message.content, (
                        f"verdict: the read of {path} did not return its marker: "
                        f"{message.content[:200]!r}"
                    )
                    return
        raise AssertionError(f"verdict: the model never read {path}")

    def assert_metadata_trace(
        self, result: RunResult, secrets: Iterable[str], *, tree: TraceTree | None = None
    ) -> None:
        """The run's trace (metadata mode) holds no text the model saw or said, and
        its usage is the providers' real, non-zero counts.

        ``tree``: the trace already read from ``result.trace_path`` (else it is read).
        """
        assert result.trace_path is not None, "verdict: the run wrote no trace"
        stored = result.trace_path.read_text("utf-8")
        leaked = sorted(s for s in secrets if s in stored)
        assert not leaked, f"verdict: the metadata-mode trace holds payload text: {leaked}"
        tree = tree if tree is not None else TraceTree.load(result.trace_path)
        spans = [s for s in tree.walk() if s.kind == "llm.call"]
        counted = [
            (s.attributes.get("input_tokens"), s.attributes.get("output_tokens")) for s in spans
        ]
        assert spans and all(
            isinstance(i, int) and i > 0 and isinstance(o, int) and o > 0 for i, o in counted
        ), f"verdict: the llm calls report no usage: {counted}"
        assert result.usage.input_tokens > 0 and result.usage.output_tokens > 0, (
            f"verdict: the run reports no usage: {result.usage}"
        )
