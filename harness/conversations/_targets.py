"""The agent a conversation talks to: harness's runtime, or any agent of your own.

A target answers ``respond(history) -> str``: ``history`` is every message so far
as ``{"role": "user" | "assistant", "content": str}``, ending with the user's
latest. A case names one as ``target: package.module:name``, where ``name`` is a
function ``fn(history) -> str`` or an object with a ``respond(history)`` method.
Harness's own runtime is :class:`RuntimeAgent`: each turn is one run in one
session, so the session's memory carries the conversation.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

from harness.core.errors import ConfigurationError
from harness.tracing import Tracer, redact

__all__ = [
    "ConversationTarget",
    "FunctionTarget",
    "RuntimeAgent",
    "RuntimeApplication",
    "load_conversation_target",
]

History = list[dict[str, str]]


def _one_line(text: str, limit: int = 300) -> str:
    """An exception's message on one line, cut to ``limit`` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


@runtime_checkable
class ConversationTarget(Protocol):
    """An agent in a conversation: the reply to the history so far."""

    def respond(self, history: History) -> str:
        """The agent's next message after ``history`` (which ends with the user's)."""
        ...


class FunctionTarget:
    """A function ``fn(history) -> str`` as a target."""

    def __init__(self, function: Callable[[History], Any], label: str = "target") -> None:
        self._function = function
        self._label = label

    def respond(self, history: History) -> str:
        try:
            reply = self._function(history)
        except Exception as exc:
            # The agent under test failed: the row fails on one line that names the
            # target and the turn (redacted: the message may quote a key), never a
            # traceback out of the conversation loop.
            turn = sum(1 for message in history if message.get("role") == "user")
            raise ConfigurationError(
                f"conversation target {self._label} raised {type(exc).__name__} at user turn "
                f"{turn}: {redact(_one_line(str(exc)))}"
            ) from exc
        if not isinstance(reply, str):
            raise ConfigurationError(
                f"conversation target {self._label} returned {type(reply).__name__}, "
                "not the reply text"
            )
        return reply


def load_conversation_target(spec: str) -> ConversationTarget:
    """The target ``package.module:name`` names (a function, or an object with ``respond``).

    Raises:
        ConfigurationError: the module cannot be imported, or ``name`` is neither.
    """
    module_name, _, attribute = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"conversation target {spec!r}: cannot import {module_name} ({exc}); is it on sys.path?"
        ) from None
    except Exception as exc:  # the module itself fails (a syntax error, a raise at import)
        raise ConfigurationError(
            f"conversation target {spec!r}: importing {module_name} raised "
            f"{type(exc).__name__}: {redact(_one_line(str(exc)))}"
        ) from None
    found = getattr(module, attribute, None)
    if found is None:
        raise ConfigurationError(f"conversation target {spec!r}: {module_name} has no {attribute}")
    if not isinstance(found, type) and callable(getattr(found, "respond", None)):
        return FunctionTarget(found.respond, spec)
    if callable(found) and not isinstance(found, type):
        return FunctionTarget(found, spec)
    raise ConfigurationError(
        f"conversation target {spec!r}: {attribute} is neither a function fn(history) -> str "
        "nor an object with a respond(history) method (a class: make an instance at module level)"
    )


class RuntimeApplication(Protocol):
    """What :class:`RuntimeAgent` needs of ``harness.app.Application``."""

    tracer: Tracer

    def run(
        self, prompt: str, *, mode: Any = ..., session: Any = ..., max_steps: int | None = ...
    ) -> Any:
        """One run of the agent loop; returns a ``RunResult``."""
        ...


class RuntimeAgent:
    """Harness's runtime as a target: one run per turn in ``session``.

    The run sees the user's latest message as its prompt and the earlier turns
    through the session's memory. Its results (one per turn) are kept in
    ``results``; its spans nest inside the conversation's ``agent.turn`` spans,
    since it runs on the same tracer (``tracer``).
    """

    def __init__(
        self, app: RuntimeApplication, *, session: str, mode: str = "act", max_steps: int = 8
    ) -> None:
        self.app = app
        self.session = session
        self.mode = mode
        self.max_steps = max_steps
        self.results: list[Any] = []

    @property
    def tracer(self) -> Tracer:
        return self.app.tracer

    def respond(self, history: History) -> str:
        result = self.app.run(
            history[-1]["content"], mode=self.mode, session=self.session, max_steps=self.max_steps
        )
        self.results.append(result)
        return str(result.text or "")
