"""The scenario script a simulator answers from (schema version 1).

A script is ordered ``turns`` (one per request, in arrival order, or chosen by
the number of assistant turns in the conversation) and ``rules`` checked first
that react to the request. YAML example::

    version: 1
    turns:
      - tool_calls: [{name: read, arguments: {path: notes.txt}}]
      - "The notes say hello."
    rules:
      - kind: echo_sentinels            # answer with every SENTINEL-... seen in tool results
      - kind: reply
        when: {last_tool_result_contains: "permission denied"}
        reply: {text: "I cannot read that file."}
      - fill: "SENTINEL-[A-Z0-9-]+"     # copy a value the tools returned into the reply
        when: {last_tool_result_contains: "def greet"}
        reply: {tool_calls: [{name: write, arguments: {path: out.txt, content: "{match}"}}]}

A bare list is a ``HARNESS_SCRIPT`` turn file (what ``HARNESS_PROVIDER=scripted``
reads), served in order per conversation; its ``{tool: read, arguments: {...}}``
and ``{error: "message"}`` turns are accepted in any script's turns too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from harness.core.errors import ConfigurationError
from harness.jsonload import JsonTooDeepError, load_json
from harness.yamlload import DocumentBoundsError, YamlSyntaxError, load_yaml

__all__ = [
    "Condition",
    "EchoSentinelsRule",
    "ErrorReply",
    "JudgeRule",
    "Reply",
    "ReplyRule",
    "Script",
    "ScriptToolCall",
    "load_script",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class ScriptToolCall(BaseModel):
    """One tool call the simulated model makes (``id`` is generated if omitted)."""

    model_config = _FROZEN

    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ErrorReply(BaseModel):
    """An API error to answer with, in the provider's error shape."""

    model_config = _FROZEN

    status: int = Field(default=429, ge=400, le=599)
    message: str = "Rate limit reached for requests (harness simulator)."
    type: str | None = None


class Reply(BaseModel):
    """What the simulated model answers: text, tool calls, or an API error."""

    model_config = _FROZEN

    text: str = ""
    tool_calls: tuple[ScriptToolCall, ...] = ()
    error: ErrorReply | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> Reply:
        if self.error is not None and (self.text or self.tool_calls):
            raise ValueError("a reply is either an error or text/tool_calls, not both")
        if self.error is None and not self.text and not self.tool_calls:
            raise ValueError("a reply needs text, tool_calls or error")
        return self


def _as_reply(value: Any) -> Any:
    # Also the turn shapes of a HARNESS_SCRIPT file (ScriptedProvider's format):
    # ``{"tool": name, "arguments": {...}}`` and ``{"error": "message"}``.
    if isinstance(value, str):
        return {"text": value}
    if not isinstance(value, dict):
        return value
    turn = dict(value)
    if "tool" in turn:
        call = {"name": turn.pop("tool"), "arguments": turn.pop("arguments", {})}
        if "id" in turn:
            call["id"] = turn.pop("id")
        turn["tool_calls"] = [call, *turn.get("tool_calls", ())]
    if isinstance(turn.get("error"), str):
        turn["error"] = {"status": 400, "message": turn["error"]}
    return turn


class Condition(BaseModel):
    """When a rule applies; every field set must hold (an empty condition always does)."""

    model_config = _FROZEN

    last_tool_result_contains: str | None = None
    last_user_contains: str | None = None
    tool_results_match: str | None = None
    model: str | None = None
    tools_include: str | None = None
    has_tool_results: bool | None = None
    # Whose request it is in a conversation case (read from its system text, see
    # harness.core.roles): script the simulated user with ``role: user``.
    role: Literal["agent", "user", "judge"] | None = None

    @field_validator("tool_results_match")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            re.compile(value)
        return value


class ReplyRule(BaseModel):
    """Answer ``reply`` whenever ``when`` holds.

    With ``fill`` (a regex), every ``{match}`` in the reply's text and in its tool
    calls' string arguments becomes the value ``fill`` finds in the latest tool
    result that has one (its first group if it has groups, else the whole match);
    when no tool result matches, the rule does not apply. Values come only from
    tool results, never from the prompt: the simulated model can repeat what its
    tools returned, not what it was told, so a scenario built on it stays honest.
    """

    model_config = _FROZEN

    kind: Literal["reply"] = "reply"
    when: Condition = Field(default_factory=Condition)
    reply: Reply
    fill: str | None = None

    @field_validator("reply", mode="before")
    @classmethod
    def _coerce(cls, value: Any) -> Any:
        return _as_reply(value)

    @field_validator("fill")
    @classmethod
    def _regex(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as exc:  # pydantic reports ValueError, not re.error
                raise ValueError(f"fill is not a valid regular expression: {exc}") from exc
        return value


class EchoSentinelsRule(BaseModel):
    """When the request ends with tool results, answer with the sentinels they hold.

    Sentinels are collected, in order and without repeats, from every tool result
    in the conversation; the rule stays silent when there are none.
    """

    model_config = _FROZEN

    kind: Literal["echo_sentinels"] = "echo_sentinels"
    when: Condition = Field(default_factory=Condition)
    pattern: str = r"SENTINEL-[A-Z0-9-]+"
    template: str = "Sentinels found: {sentinels}"

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str) -> str:
        re.compile(value)
        return value


class JudgeRule(BaseModel):
    """Grade a judge request honestly: pass only if its ``<answer>`` shows every sentinel
    its ``<rubric>`` expects (found with ``pattern``); answers strict JSON
    ``{"verdict": ..., "reason": ...}``. Silent when the rubric names no sentinel.
    """

    model_config = _FROZEN

    kind: Literal["judge"] = "judge"
    when: Condition = Field(default_factory=Condition)
    pattern: str = r"SENTINEL-[A-Z0-9-]+"

    @field_validator("pattern")
    @classmethod
    def _regex(cls, value: str) -> str:
        re.compile(value)
        return value


Rule = Annotated[ReplyRule | EchoSentinelsRule | JudgeRule, Field(discriminator="kind")]


class Script(BaseModel):
    """A versioned scenario script for :class:`~harness.simulator.SimulatorServer`.

    Attributes:
        turns: replies in order; a plain string is a text reply.
        rules: checked in order before the turns; the first that applies answers.
        turn_order: ``sequence`` takes the next turn per request; ``conversation``
            takes turn *n* where *n* is the number of assistant messages sent.
        when_exhausted: ``error`` answers 400 once turns run out; ``repeat_last``
            repeats the last turn.
        model: the model name reported in answers (default: the requested one).
    """

    model_config = _FROZEN

    version: Literal[1] = 1
    turns: tuple[Reply, ...] = ()
    rules: tuple[Rule, ...] = ()
    turn_order: Literal["sequence", "conversation"] = "sequence"
    when_exhausted: Literal["error", "repeat_last"] = "error"
    model: str | None = None

    @field_validator("turns", mode="before")
    @classmethod
    def _coerce_turns(cls, value: Any) -> Any:
        if isinstance(value, (list, tuple)):
            return [_as_reply(item) for item in value]
        return value

    @field_validator("rules", mode="before")
    @classmethod
    def _default_kind(cls, value: Any) -> Any:
        # A rule without ``kind`` is a reply rule: the common case reads shorter.
        if isinstance(value, (list, tuple)):
            return [
                {"kind": "reply", **item} if isinstance(item, dict) and "kind" not in item else item
                for item in value
            ]
        return value


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _read(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigurationError(
            f"cannot read simulator script {path}: {exc.strerror or exc}"
        ) from None
    source = f"simulator script {path}"
    try:
        if path.suffix.lower() == ".json":
            return load_json(text, source=source)
        return load_yaml(text, source=source)
    except (JsonTooDeepError, DocumentBoundsError) as exc:
        raise ConfigurationError(str(exc)) from None
    except YamlSyntaxError as exc:
        raise ConfigurationError(str(exc)) from None  # names the script, line and column
    except (ValueError, yaml.YAMLError) as exc:
        kind = "JSON" if path.suffix.lower() == ".json" else "YAML"
        raise ConfigurationError(
            f"simulator script {path} is not valid {kind}: {_one_line(str(exc))}"
        ) from None


# The ``kind`` of each rule model: pydantic puts it into an error's location.
_RULE_KINDS = frozenset(
    str(model.model_fields["kind"].default) for model in (ReplyRule, EchoSentinelsRule, JudgeRule)
)


def _location(loc: tuple[int | str, ...]) -> str:
    """Where a problem is, as the script spells it: ``rules.0.when``, not ``rules.0.reply.when``.

    A discriminated union adds the chosen member's tag after the list index; the
    script has no such level, so it is dropped.
    """
    parts = [
        part
        for index, part in enumerate(loc)
        if not (
            index >= 2
            and loc[index - 2] == "rules"
            and isinstance(loc[index - 1], int)
            and part in _RULE_KINDS
        )
    ]
    return ".".join(str(part) for part in parts) or "(script)"


def _summary(exc: ValidationError) -> str:
    problems = [
        f"{_location(error['loc'])}: {str(error['msg']).removeprefix('Value error, ')}"
        for error in exc.errors()
    ]
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return _one_line("; ".join(problems[:3]) + more)


def load_script(source: Script | Mapping[str, Any] | str | os.PathLike[str]) -> Script:
    """Build a :class:`Script` from a model, a mapping, or a YAML/JSON file path.

    A file (or value) that is a bare list is a ``HARNESS_SCRIPT`` turn file, the
    format ``HARNESS_PROVIDER=scripted`` reads: its turns are served in order per
    conversation (turn *n* answers a request with *n* - 1 assistant messages).

    Raises:
        ConfigurationError: the file is missing or unreadable, or the script is
            invalid; the message is one line.
    """
    if isinstance(source, Script):
        return source
    origin = "script"
    data: Any = source
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        origin = str(path)
        data = _read(path)
    if isinstance(data, list):
        data = {"turns": data, "turn_order": "conversation"}
    if not isinstance(data, Mapping):
        raise ConfigurationError(
            f"invalid simulator script ({origin}): expected a mapping with turns/rules, "
            f"or a list of turns; got {type(data).__name__}"
        )
    try:
        return Script.model_validate(data)
    except ValidationError as exc:
        raise ConfigurationError(f"invalid simulator script ({origin}): {_summary(exc)}") from None
