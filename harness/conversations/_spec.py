"""The ``user:`` block of a case file: who the simulated user is and how they talk.

A conversation case replaces the one ``prompt`` by a user::

    user:
      persona: Dana, a customer in a hurry.       # who the user is
      goal: Get order W-1001 refunded.            # what they want (the user model's task)
      first_message: Hi, I need a refund.         # optional: the user's opening, fixed
      turns:                                      # optional: scripted, said in order
        - My order id is W-1001.
        - {say: Done., tool: {name: restart_router}}
      graph:                                      # optional instead: a graph of turns
        start: greet
        nodes:
          greet:
            say: Hi, my internet is down.
            then:                                 # on the agent's next reply, first match
              - {when: {contains: restart}, goto: restart}
              - {goto: greet}                     # no `when`: always
          restart: {say: "Done, it is back. ###STOP###", tool: {name: restart_router}}
      stop:
        token: "###STOP###"                       # the user says it: the conversation ends
        max_turns: 8                              # user turns at most
        on_goal: true                             # end once checks.state holds
      state: state.json                           # the workspace's JSON state file
      tools:                                      # the user's own tools (dual control)
        - name: restart_router
          description: Restart the router at home.
          sets: {router.status: online}           # dotted paths in the state file
          result: The router restarts; its light turns green.

Without ``turns`` or ``graph`` the user is a model: each user turn is a model
request (persona, goal, the conversation so far) through the case's provider
and cassette, tagged ``user`` by its system text (:mod:`harness.core.roles`).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "AgentSaid",
    "Branch",
    "GraphNode",
    "StopSpec",
    "TurnGraph",
    "UserSpec",
    "UserStep",
    "UserToolCall",
    "UserToolSpec",
]

_STRICT = ConfigDict(frozen=True, extra="forbid")
DEFAULT_STOP_TOKEN = "###STOP###"


class AgentSaid(BaseModel):
    """A condition on what the agent just said; every field given must hold.

    ``contains``: each string, case-insensitively; ``any``: at least one of them;
    ``not_contains``: none of them; ``regex``: a match anywhere (Python ``re``).
    A string is the one-item list (``contains: order id``).
    """

    model_config = _STRICT

    contains: tuple[str, ...] = ()
    any: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()
    regex: str | None = None

    @field_validator("contains", "any", "not_contains", mode="before")
    @classmethod
    def _one_string(cls, value: Any) -> Any:
        return (value,) if isinstance(value, str) else value

    @field_validator("regex")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:
                raise ValueError(f"regex is not a valid regular expression: {exc}") from exc
        return value


class UserToolCall(BaseModel):
    """A user tool the scripted user runs before saying their line."""

    model_config = _STRICT

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)


class UserStep(BaseModel):
    """One scripted user turn: what they say, and optionally a tool they run first.

    A string is ``{say: <string>}``.
    """

    model_config = _STRICT

    say: str
    tool: UserToolCall | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        return {"say": value} if isinstance(value, str) else value


class Branch(BaseModel):
    """Where the graph goes after the agent's reply: ``goto`` when ``when`` holds."""

    model_config = _STRICT

    when: AgentSaid | None = None
    goto: str = Field(min_length=1)


class GraphNode(UserStep):
    """A graph node: a step, then the branches tried on the agent's reply, in order.

    No ``then``: the conversation ends after the agent answers this node.
    """

    then: tuple[Branch, ...] = ()


class TurnGraph(BaseModel):
    """A graph of user turns that branches on what the agent said."""

    model_config = _STRICT

    start: str = Field(min_length=1)
    nodes: dict[str, GraphNode] = Field(min_length=1)

    @model_validator(mode="after")
    def _targets_exist(self) -> TurnGraph:
        names = set(self.nodes)
        if self.start not in names:
            raise ValueError(f"start {self.start!r} is not a node (nodes: {sorted(names)})")
        for name, node in self.nodes.items():
            for branch in node.then:
                if branch.goto not in names:
                    raise ValueError(
                        f"node {name!r} goes to {branch.goto!r}, which is not a node "
                        f"(nodes: {sorted(names)})"
                    )
        return self


class StopSpec(BaseModel):
    """When the conversation ends (whichever comes first)."""

    model_config = _STRICT

    token: str = Field(default=DEFAULT_STOP_TOKEN, min_length=1)
    max_turns: int = Field(default=10, ge=1, le=100)
    on_goal: bool = False


class UserToolSpec(BaseModel):
    """A tool on the user's side (τ²-style dual control): it changes the state file.

    ``sets`` maps dotted paths of the state file (``router.status``) to the values
    the tool writes; ``result`` is what the user sees afterwards.
    """

    model_config = _STRICT

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*$")
    description: str = Field(min_length=1)
    sets: dict[str, Any] = Field(default_factory=dict)
    result: str = "done"

    @field_validator("sets")
    @classmethod
    def _paths(cls, value: dict[str, Any]) -> dict[str, Any]:
        bad = [path for path in value if not path or any(not p for p in path.split("."))]
        if bad:
            raise ValueError(f"sets: not a dotted path: {bad} (write e.g. router.status)")
        return value


class UserSpec(BaseModel):
    """The simulated user of a conversation case."""

    model_config = _STRICT

    persona: str = Field(min_length=1)
    goal: str = Field(min_length=1)
    first_message: str | None = Field(default=None, min_length=1)
    turns: tuple[UserStep, ...] | None = Field(default=None, min_length=1)
    graph: TurnGraph | None = None
    stop: StopSpec = Field(default_factory=StopSpec)
    state: str | None = Field(default=None, min_length=1)
    tools: tuple[UserToolSpec, ...] = ()

    @field_validator("state")
    @classmethod
    def _inside_the_workspace(cls, value: str | None) -> str | None:
        # The user's tools write this file: a path that leaves the workspace would
        # let a case file overwrite anything the test process can write.
        if value is not None:
            parts = value.replace("\\", "/").split("/")
            if value.startswith(("/", "\\")) or ":" in parts[0] or ".." in parts:
                raise ValueError(
                    f"state {value!r} must be a path inside the workspace, "
                    "relative and without '..' (e.g. state.json)"
                )
        return value

    @model_validator(mode="after")
    def _consistent(self) -> UserSpec:
        if self.turns is not None and self.graph is not None:
            raise ValueError("give turns or graph, not both (or neither: a model user)")
        if self.first_message is not None and (self.turns or self.graph):
            raise ValueError("first_message is for a model user; a script's first turn opens")
        names = [tool.name for tool in self.tools]
        if len(set(names)) != len(names):
            raise ValueError(f"user tool names repeat: {names}")
        if self.tools and self.state is None:
            raise ValueError("user tools change the state file: name it with state: <path>")
        used = [step.tool.name for step in self.scripted_steps() if step.tool is not None]
        unknown = sorted(set(used) - set(names))
        if unknown:
            raise ValueError(f"scripted turns run user tools that tools: does not list: {unknown}")
        return self

    @property
    def scripted(self) -> bool:
        """True when a script (turns or graph) speaks for the user, not a model."""
        return self.turns is not None or self.graph is not None

    def scripted_steps(self) -> tuple[UserStep, ...]:
        """Every step the script can say (turns, or every graph node)."""
        if self.turns is not None:
            return self.turns
        if self.graph is not None:
            return tuple(self.graph.nodes.values())
        return ()

    def texts(self) -> tuple[str, ...]:
        """Everything the case tells the user: a sentinel found here proves nothing."""
        return (
            self.persona,
            self.goal,
            *([self.first_message] if self.first_message else []),
            *(step.say for step in self.scripted_steps()),
        )
