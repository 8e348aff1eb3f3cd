"""ScriptedProvider: a strict queue of turns for tests, demos and the CLI.

Two ways to pick the turn that answers a request:

- in order (the default, ``ScriptedProvider(turns)``): the n-th request gets
  the n-th turn, whatever it holds. Strict and simple for one process.
- by conversation (``ScriptedProvider(turns, by_conversation=True)``, what
  ``HARNESS_PROVIDER=scripted`` with ``HARNESS_SCRIPT`` uses): a request whose
  conversation already holds n assistant messages gets turn n + 1. The answer
  then depends only on the request, not on how many requests this process saw,
  so a run paused for approval in one process (``harness run``) continues with
  the next turn in another (``harness approve ID``) instead of starting over.
  Earlier answers that the context replays from session memory are part of the
  conversation and count too: one script describes a whole session; use a new
  ``--session`` to start it at turn 1. Compaction (``HARNESS_CONTEXT_MAX_CHARS``)
  drops old turns and so would move the count back; a scripted conversation
  stays far below it. An Explorer child is a conversation of its own and would
  start at turn 1, so script runs that explore in Python.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from harness.core.errors import ProviderError
from harness.core.messages import LLMRequest, LLMResponse, Role, ToolCall, Usage

__all__ = ["ScriptedProvider", "Turn", "tool_call", "turn_to_response"]

Turn: TypeAlias = (
    "str | ToolCall | Sequence[ToolCall] | LLMResponse | BaseException | "
    "Callable[[LLMRequest], Turn]"
)


def tool_call(name: str, /, *, id: str | None = None, **arguments: Any) -> ToolCall:
    """Build one tool call for a script: ``tool_call("read", path="README.md")``."""
    if id is None:
        return ToolCall(name=name, arguments=arguments)
    return ToolCall(id=id, name=name, arguments=arguments)


def turn_to_response(turn: object, request: LLMRequest, *, model: str | None) -> LLMResponse:
    """Resolve one scripted turn against the request it answers."""
    depth = 0
    while callable(turn) and not isinstance(turn, (LLMResponse, BaseException, type)):
        turn = turn(request)
        depth += 1
        if depth > 16:
            raise ProviderError("a scripted callable turn kept returning callables")
    if isinstance(turn, BaseException):
        raise turn
    if isinstance(turn, LLMResponse):
        return turn
    if isinstance(turn, str):
        return LLMResponse(text=turn, model=model, stop_reason="end_turn", usage=_usage(turn))
    if isinstance(turn, ToolCall):
        return LLMResponse(tool_calls=(turn,), model=model, stop_reason="tool_use")
    if isinstance(turn, (list, tuple)) and turn and all(isinstance(t, ToolCall) for t in turn):
        return LLMResponse(tool_calls=tuple(turn), model=model, stop_reason="tool_use")
    raise ProviderError(
        f"scripted turn of type {type(turn).__name__} is not supported; use a str, a "
        "tool_call(...), a list of tool calls, an LLMResponse, an exception or a callable"
    )


def _usage(text: str) -> Usage:
    return Usage(output_tokens=len(text.split()))


class ScriptedProvider:
    """Returns scripted turns in order and records every request.

    A turn is a text (final answer), a ``ToolCall`` or list of them, an
    ``LLMResponse``, an exception (raised), or a callable of the request that
    returns any of these. Running out of turns raises a ``ProviderError`` naming
    the step; ``assert_complete()`` fails if turns were left unused.

    With ``by_conversation=True`` the turn is chosen by the number of assistant
    messages already in the request's conversation (see the module docstring)
    instead of by the order of requests.
    """

    def __init__(
        self,
        turns: Sequence[object] = (),
        *,
        name: str = "scripted",
        model: str = "scripted",
        by_conversation: bool = False,
    ) -> None:
        self._turns: list[object] = list(turns)
        self._next = 0
        self.by_conversation = by_conversation
        self._lock = threading.Lock()
        self.name = name
        self.model: str | None = model
        self.requests: list[LLMRequest] = []

    @property
    def remaining(self) -> int:
        return len(self._turns) - self._next

    def add(self, *turns: object) -> None:
        """Append turns to the script."""
        with self._lock:
            self._turns.extend(turns)

    def complete(self, request: LLMRequest) -> LLMResponse:
        with self._lock:
            self.requests.append(request)
            index = _assistant_turns(request) if self.by_conversation else self._next
            if index >= len(self._turns):
                raise ProviderError(self._ran_out(index), provider=self.name)
            self._next = max(self._next, index + 1)
            turn = self._turns[index]
        return turn_to_response(turn, request, model=self.model)

    def _ran_out(self, index: int) -> str:
        if self.by_conversation:
            return (
                f"ScriptedProvider ran out of turns: the conversation already holds {index} "
                f"assistant turn(s), so it asked for turn {index + 1}, and the script has "
                f"{len(self._turns)}; add turns (e.g. a final text answer), or start a new "
                "session if earlier runs of this one used the script"
            )
        return (
            f"ScriptedProvider ran out of turns at step {index + 1}: the script has "
            f"{len(self._turns)} turn(s) and the engine asked for another; add a turn "
            "(e.g. a final text answer) or lower max_steps"
        )

    def assert_complete(self) -> None:
        """Fail if scripted turns were left unused."""
        if self.remaining:
            raise AssertionError(
                f"ScriptedProvider has {self.remaining} unused turn(s) of {len(self._turns)}: "
                f"the run made {self._next} request(s); next unused turn: "
                f"{self._turns[self._next]!r}"
            )


def _assistant_turns(request: LLMRequest) -> int:
    return sum(1 for message in request.messages if message.role is Role.ASSISTANT)
