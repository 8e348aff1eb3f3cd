"""The values of harness's own checks: what ``files:``, ``calls:``, ``trajectory:``... hold.

Each is the ``config`` of one built-in check (:mod:`harness.evals.builtin_checks`);
:mod:`harness.evals.cases` re-exports them, the case format's names.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "CallSpec",
    "ConversationEnd",
    "FileCheck",
    "JudgeSpec",
    "ObservationCheck",
    "StateCheck",
    "StopReasonName",
    "TrajectoryCall",
    "TrajectorySpec",
]

_STRICT = ConfigDict(frozen=True, extra="forbid")
StopReasonName = Literal["final", "max_steps", "provider_error", "approval_resume_failed"]


class FileCheck(BaseModel):
    """What one workspace file must hold after the run (or that it must not exist)."""

    model_config = _STRICT

    path: str = Field(min_length=1)
    exists: bool = True
    equals: str | None = None
    ends_with: str | None = None
    contains: tuple[str, ...] = ()
    not_contains: tuple[str, ...] = ()

    @model_validator(mode="after")
    def _consistent(self) -> FileCheck:
        asks = self.equals is not None or self.ends_with is not None or self.contains
        if not self.exists and (asks or self.not_contains):
            raise ValueError("a file that must not exist cannot also have content checks")
        if self.exists and not (asks or self.not_contains):
            raise ValueError("give equals, ends_with, contains or not_contains (or exists: false)")
        return self


class CallSpec(BaseModel):
    """One tool call the model must make: its name and a subset of its arguments.

    In a case file it is a mapping ``{name: write, arguments: {path: a.txt}}`` or
    the short string ``"read a.txt"`` (the name, then the ``path`` argument).
    """

    model_config = _STRICT

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        if isinstance(value, str):
            name, _, path = value.strip().partition(" ")
            return {"name": name, "arguments": {"path": path.strip()} if path.strip() else {}}
        return value

    def label(self) -> str:
        shown = ", ".join(f"{k}={v!r}" for k, v in self.arguments.items())
        return f"{self.name}({shown})"


class TrajectoryCall(BaseModel):
    """One call of a ``trajectory:`` block: a name and, optionally, its arguments.

    ``"read"`` is any call of ``read``; ``"read a.txt"`` is ``read`` with
    ``{path: a.txt}``; a mapping is ``{name: ..., args: {...}}`` (or ``arguments:``,
    as in ``calls:``).
    """

    model_config = _STRICT

    name: str = Field(min_length=1)
    args: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _short_form(cls, value: Any) -> Any:
        if isinstance(value, str):
            name, _, path = value.strip().partition(" ")
            return {"name": name, "args": {"path": path.strip()} if path.strip() else None}
        if isinstance(value, dict) and "arguments" in value and "args" not in value:
            # The spelling of ``calls:``; the rest of the value is checked as given.
            value = {("args" if key == "arguments" else key): v for key, v in value.items()}
        return value


_ArgsMode = Literal["exact", "ignore", "subset", "superset"]


class TrajectorySpec(BaseModel):
    """The tool calls a run must make, matched as ``harness.testing.assert_trajectory`` does."""

    model_config = _STRICT

    calls: tuple[TrajectoryCall, ...]
    match: Literal["strict", "unordered", "subset", "superset", "in_order"] = "strict"
    args: _ArgsMode = "exact"
    per_tool: dict[str, _ArgsMode | tuple[str, ...]] = Field(default_factory=dict)
    include_output_tools: bool = False


class ObservationCheck(BaseModel):
    """The result the model was shown for the first call to ``tool`` (on ``path``)."""

    model_config = _STRICT

    tool: str = Field(min_length=1)
    path: str | None = None
    contains: tuple[str, ...] = Field(min_length=1)


class JudgeSpec(BaseModel):
    """A rubric an LLM grades the run against (see :mod:`harness.evals.judge`)."""

    model_config = _STRICT

    rubric: str = Field(min_length=1)


class StateCheck(BaseModel):
    """The goal of a conversation, τ-bench style: the JSON state file after it.

    ``equals``: the whole file must equal this value; ``subset``: the keys given
    (at any depth) must hold these values, others may be anything.
    """

    model_config = _STRICT

    path: str = Field(min_length=1)
    equals: Any = None
    subset: dict[str, Any] | None = None

    @model_validator(mode="after")
    def _one(self) -> StateCheck:
        if (self.equals is None) == (self.subset is None):
            raise ValueError("give equals (the whole state) or subset (some keys), one of them")
        return self


ConversationEnd = Literal[
    "user_stop", "goal_reached", "max_turns", "script_end", "no_branch", "user_silent"
]
