"""Mutants of a conversation: the agent's turns and the simulated user's, apart.

A conversation's cassette holds three streams of answers, told apart by the role
each request's system text carries (:mod:`harness.core.roles`): the agent's, the
user model's and the judge's. Served as one positional sequence, a mutant that
drops one agent answer would hand the user model the agent's next one; so each
role is served its own sequence, in order (``PositionalProvider(by_role=...)``),
and one stream is mutated at a time:

- the agent's, by every operator of :mod:`harness.evals.mutations`;
- the user's: ``user_silent`` (the user says nothing more), ``user_changes_mind``
  (the user takes the request back and leaves), ``user_wrong_id`` (the ids the user
  gives are altered), ``user_skips_tool`` (the user says they ran their tool but
  did not).

Each description ends with the turn it changes (``[agent turn 1 of 3]``): a
survivor that changed an agent turn before the last shows an eval that reads only
the agent's last message (the mutant table says so). The judge's stream is never mutated.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from harness.core.messages import LLMResponse
from harness.core.roles import ROLES, ConversationRole
from harness.evals.mutant_results import CONTROL
from harness.evals.mutations import Mutant, Recorded, altered_markers, derive_mutants

__all__ = [
    "CHANGED_MIND",
    "ConversationMutant",
    "conversation_mutants",
    "earlier_turn",
    "is_conversation",
    "split_by_role",
]

CHANGED_MIND = "Actually, I have changed my mind. Please cancel all of that. ###STOP###"
SKIPPED_TOOL = "OK, I did that."
Streams = tuple[tuple[ConversationRole, tuple[Recorded, ...]], ...]


@dataclass(frozen=True, slots=True)
class ConversationMutant(Mutant):
    """A mutant whose answers are served per role: ``by_role`` holds each role's sequence."""

    by_role: Streams


def is_conversation(roles: Sequence[ConversationRole]) -> bool:
    """Whether a cassette whose requests had ``roles`` holds a conversation (a user model)."""
    return "user" in roles


def split_by_role(recorded: Sequence[Recorded], roles: Sequence[ConversationRole]) -> Streams:
    """Each role's answers, in recorded order (``recorded`` and ``roles`` align)."""
    return tuple(
        (role, tuple(r for r, of in zip(recorded, roles, strict=True) if of == role))
        for role in ROLES
    )


def _turn_of(stream: Sequence[Recorded], index: int) -> int:
    """The turn the answer at ``index`` belongs to: a turn ends with an answer without calls."""
    return 1 + sum(1 for r in stream[:index] if not (isinstance(r, LLMResponse) and r.tool_calls))


def _turns(stream: Sequence[Recorded]) -> int:
    return max(1, _turn_of(stream, len(stream)) - 1) if stream else 0


def _first_change(old: Sequence[Recorded], new: Sequence[Recorded]) -> int:
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return index
    return min(len(old), len(new))


def _where(role: str, stream: Sequence[Recorded], index: int) -> str:
    turn = min(_turn_of(stream, index), _turns(stream))
    return f"[{role} turn {turn} of {_turns(stream)}]"


def earlier_turn(description: str) -> bool:
    """Whether a conversation mutant's description names an agent turn before the last
    (what an eval that reads only the agent's last message cannot see)."""
    tail = description.rpartition("[")[2]
    words = tail.rstrip("]").split()
    if len(words) != 5 or words[:2] != ["agent", "turn"] or words[3] != "of":
        return False
    return words[2].isdigit() and words[4].isdigit() and int(words[2]) < int(words[4])


def _user_operators(
    stream: tuple[Recorded, ...],
) -> Iterator[tuple[str, str, int, tuple[Recorded, ...]]]:
    """``(operator, description, index, stream)`` of each user mutant."""
    for index, answer in enumerate(stream):
        if not isinstance(answer, LLMResponse):
            continue
        if answer.tool_calls:
            names = ", ".join(call.name for call in answer.tool_calls)
            skipped = answer.model_copy(update={"tool_calls": (), "text": SKIPPED_TOOL})
            yield (
                "user_skips_tool",
                f"the user says they ran {names} but did not",
                index,
                (*stream[:index], skipped, *stream[index + 1 :]),
            )
            continue
        silent = answer.model_copy(update={"text": ""})
        yield "user_silent", "the user says nothing more", index, _swap(stream, index, silent)
        if "###STOP###" not in answer.text:
            mind = answer.model_copy(update={"text": CHANGED_MIND})
            yield (
                "user_changes_mind",
                "the user changes their mind and leaves",
                index,
                _swap(stream, index, mind),
            )
        wrong = altered_markers(answer.text)
        if wrong is not None and wrong != answer.text:
            new = answer.model_copy(update={"text": wrong})
            yield (
                "user_wrong_id",
                f"the user gives a wrong id: {wrong[:60]!r}",
                index,
                _swap(stream, index, new),
            )


def _swap(stream: tuple[Recorded, ...], index: int, new: Recorded) -> tuple[Recorded, ...]:
    return (*stream[:index], new, *stream[index + 1 :])


def _with(streams: Streams, role: ConversationRole, stream: tuple[Recorded, ...]) -> Streams:
    return tuple((of, stream if of == role else old) for of, old in streams)


def conversation_mutants(
    recorded: tuple[Recorded, ...], roles: Sequence[ConversationRole]
) -> tuple[ConversationMutant, ...]:
    """The control, then the agent's mutants, then the user's, each served per role."""
    streams = split_by_role(recorded, roles)
    by = dict(streams)
    agent, user = by["agent"], by["user"]
    found = [
        ConversationMutant(CONTROL, CONTROL, "the recorded answers, per role", recorded, streams)
    ]
    for mutant in derive_mutants(agent):
        where = _where("agent", agent, _first_change(agent, mutant.responses))
        found.append(
            ConversationMutant(
                mutant.id,
                mutant.operator,
                f"{mutant.description} {where}",
                mutant.responses,
                _with(streams, "agent", mutant.responses),
            )
        )
    sites: dict[str, int] = {}
    for operator, description, index, changed in _user_operators(user):
        sites[operator] = sites.get(operator, 0) + 1
        found.append(
            ConversationMutant(
                f"{operator}.{sites[operator]}",
                operator,
                f"{description} {_where('user', user, index)}",
                changed,
                _with(streams, "user", changed),
            )
        )
    return tuple(found)
