"""Who a model request speaks for in a conversation: the agent, the simulated user or the judge.

A conversation case sends three kinds of model requests through one provider and
one cassette. The role is read from the request itself, from the opening of its
system text, so it survives recording unchanged: a cassette replays in vanilla
vcrpy, the simulator can script each role (``when: {role: user}``), and the
mutants of a conversation split its recorded answers by role. No header or
entry field carries it, so nothing has to be stripped before matching.

- ``user``: the system text opens with :data:`USER_OPENING` (the simulated user's
  instructions, ``harness.conversations``);
- ``judge``: it opens with :data:`JUDGE_OPENING` (``harness.evals.judge``);
- ``agent``: anything else.
"""

from __future__ import annotations

from typing import Final, Literal

__all__ = ["JUDGE_OPENING", "ROLES", "USER_OPENING", "ConversationRole", "role_of_system"]

ConversationRole = Literal["agent", "user", "judge"]
ROLES: Final[tuple[ConversationRole, ...]] = ("agent", "user", "judge")
USER_OPENING: Final = "You play the user in a conversation with an AI assistant."
JUDGE_OPENING: Final = "You grade one run of an AI agent"


def role_of_system(system: str | None) -> ConversationRole:
    """The role of a request whose system text is ``system`` (None: it has none)."""
    text = (system or "").lstrip()
    if text.startswith(USER_OPENING):
        return "user"
    if text.startswith(JUDGE_OPENING):
        return "judge"
    return "agent"
