"""The simulated user: a script (turns or a graph) or a model, one turn at a time.

Every speaker answers ``next_turn(history, act)``: the user's next message, or
None when it has nothing more to say (``ended`` then says why). ``act`` runs one
of the user's own tools (the runner traces it and writes the state file) and
returns what the user sees.

The model user is a model request like any other, through the case's provider
and so its cassette: its system text opens with :data:`~harness.core.roles.USER_OPENING`,
which tags it ``user`` (replay, the simulator's ``when: {role: user}`` and the
mutants read the role from there). Roles are turned round for it: the agent's
messages are its ``user`` messages, its own earlier lines its ``assistant`` ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from harness.conversations._match import next_node
from harness.conversations._spec import UserSpec, UserStep, UserToolCall
from harness.conversations._transcript import ChatMessage, StopReason, UserTurn
from harness.core.messages import LLMRequest, Message, ToolCall, ToolDefinition, Usage
from harness.core.roles import USER_OPENING
from harness.providers import LLMProvider

__all__ = [
    "KICKOFF",
    "GraphUser",
    "ModelUser",
    "ScriptedUser",
    "UserSpeaker",
    "speaker_for",
    "user_instructions",
]

Act = Callable[[UserToolCall], str]
KICKOFF = "(The conversation begins. Write your first message to the assistant.)"
_MAX_TOOL_ROUNDS = 3


class UserSpeaker(Protocol):
    """Speaks for the user; ``ended`` says why it stopped once it returns None."""

    ended: StopReason | None

    def next_turn(self, history: Sequence[ChatMessage], act: Act) -> UserTurn | None:
        """The user's next turn after ``history``, or None: nothing more to say."""
        ...


def _step_turn(step: UserStep, act: Act) -> UserTurn:
    calls: tuple[ToolCall, ...] = ()
    if step.tool is not None:
        act(step.tool)
        calls = (ToolCall(name=step.tool.name, arguments=dict(step.tool.arguments)),)
    return UserTurn(step.say, calls)


class ScriptedUser:
    """Says the scripted ``turns`` in order, whatever the agent answers."""

    def __init__(self, turns: Sequence[UserStep]) -> None:
        self._turns = tuple(turns)
        self._next = 0
        self.ended: StopReason | None = None

    def next_turn(self, history: Sequence[ChatMessage], act: Act) -> UserTurn | None:
        del history  # a fixed script does not listen
        if self._next >= len(self._turns):
            self.ended = "script_end"
            return None
        step = self._turns[self._next]
        self._next += 1
        return _step_turn(step, act)


class GraphUser:
    """Walks a turn graph: each node's line, then the branch the agent's reply picks."""

    def __init__(self, spec: UserSpec) -> None:
        assert spec.graph is not None, "GraphUser needs a graph"
        self._graph = spec.graph
        self._at: str | None = None
        self.ended: StopReason | None = None
        self.path: list[str] = []  # the nodes visited, for messages

    def next_turn(self, history: Sequence[ChatMessage], act: Act) -> UserTurn | None:
        if self._at is None:
            name: str | None = self._graph.start
        else:
            node = self._graph.nodes[self._at]
            if not node.then:
                self.ended = "script_end"
                return None
            reply = history[-1].content if history and history[-1].role == "assistant" else ""
            name = next_node(node, reply)
            if name is None:
                self.ended = "no_branch"
                return None
        assert name is not None
        self._at = name
        self.path.append(name)
        return _step_turn(self._graph.nodes[name], act)


def user_instructions(spec: UserSpec) -> str:
    """The user model's system text (it opens with the ``user`` role tag)."""
    lines = [
        USER_OPENING,
        "Stay in character and write only the user's next message: short, plain, no "
        "narration. Give the assistant the facts it asks for when your persona knows them.",
        f"When your goal is reached, or cannot be reached, end your message with "
        f"{spec.stop.token}.",
        "",
        f"Persona: {spec.persona.strip()}",
        f"Goal: {spec.goal.strip()}",
    ]
    if spec.tools:
        lines.append(
            "You can run the tools given on your own side (your device, your account) "
            "when the assistant asks you to; then say what happened."
        )
    return "\n".join(lines)


def _flipped(history: Sequence[ChatMessage]) -> list[Message]:
    """The conversation as the user model sees it: the agent speaks to it."""
    messages = [Message.user(KICKOFF)]
    for message in history:
        if message.role == "assistant":
            messages.append(Message.user(message.content))
        else:
            messages.append(Message.assistant(message.content))
    return messages


class ModelUser:
    """A model plays the user, through ``provider`` (so through the case's cassette)."""

    def __init__(self, spec: UserSpec, provider: LLMProvider, *, model: str | None = None) -> None:
        self._spec = spec
        self._provider = provider
        self._model = model
        self._tools = tuple(
            ToolDefinition(name=tool.name, description=tool.description) for tool in spec.tools
        )
        self.ended: StopReason | None = None

    def next_turn(self, history: Sequence[ChatMessage], act: Act) -> UserTurn | None:
        if not history and self._spec.first_message is not None:
            return UserTurn(self._spec.first_message)
        messages = [Message.system(user_instructions(self._spec)), *_flipped(history)]
        usage = Usage()
        calls: list[ToolCall] = []
        for round_number in range(_MAX_TOOL_ROUNDS + 1):
            request = LLMRequest(
                messages=tuple(messages),
                tools=self._tools,
                model=self._model,
                max_tokens=400,
                metadata={"purpose": "user"},
            )
            response = self._provider.complete(request)
            usage = usage + response.usage
            if not response.tool_calls or round_number == _MAX_TOOL_ROUNDS:
                return UserTurn(response.text.strip(), tuple(calls), usage)
            messages.append(Message.assistant(response.text, tool_calls=response.tool_calls))
            for call in response.tool_calls:
                calls.append(call)
                shown = act(UserToolCall(name=call.name, arguments=dict(call.arguments)))
                messages.append(Message.tool(call.id, shown))
        raise AssertionError("unreachable: the last round always returns")


def speaker_for(
    spec: UserSpec, provider: LLMProvider | None, *, model: str | None = None
) -> UserSpeaker:
    """The speaker ``spec`` asks for: its script, or a model through ``provider``.

    Raises:
        ValueError: a model user without a provider.
    """
    if spec.turns is not None:
        return ScriptedUser(spec.turns)
    if spec.graph is not None:
        return GraphUser(spec)
    if provider is None:
        raise ValueError("a model user needs a provider (or give the user turns or a graph)")
    return ModelUser(spec, provider, model=model)
