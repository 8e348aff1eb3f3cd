"""Scenario cases as data: the YAML case files and their loader.

A case file (``evals/cases/*.yaml``) holds one or more cases::

    version: 1
    cases:
      - name: rename-constant             # unique across the folder
        workspace: cases/rename           # a folder under fixtures/, copied in
        prompt: Set LABEL in app.py to the label stored in label.txt.
        mode: act                         # act | plan | think | plan-act
        tools: [read, edit]               # enabled tools
        allow: []                         # tool allowlist (empty: all enabled)
        deny: []                          # tool denylist
        max_steps: 6
        approval:                         # optional: the run must pause for this tool
          tool: write
          decision: reject                # approve | reject
          reason: "SENTINEL-REJECT-1: not today"
        target: null                      # or package.module:function, an agent of
                                          # your own: fn(prompt, workspace) -> answer,
                                          # run under llm_cassette (answer and files
                                          # checks only: harness did not run it)
        profile: null                     # with a target: its llm_cassette profile,
                                          # e.g. openai-agents, pydantic-ai
        request:                          # optional: what every model request carried
          model: gpt-4.1-mini             # (see harness.evals.request_spec)
          system_sha256: 3f2a...
          stable_prefix: true
        checks:
          stop_reason: final              # default final
          steps: 3                        # optional exact step count
          files:
            - {path: app.py, equals: "LABEL = \\"SENTINEL-LABEL-1\\"\\n"}
            - {path: app.py, contains: [SENTINEL-LABEL-1], not_contains: [unset]}
            - {path: secrets.txt, exists: false}
          answer_contains: [SENTINEL-LABEL-1]
          answer_not_contains: []
          tools_called: {read: 2, edit: 1}  # calls that ran (ok or error), exact
          tools_failed: {}                # of those, calls whose result was an error
                                          # (exact; a tool not listed must not fail)
          tools_not_called: [write]       # never ran (denied or rejected is fine)
          calls:                          # every call the model made, in order
            - read label.txt              # (subagents' calls included);
            - read app.py                 # "name path" or {name, arguments}
            - {name: edit, arguments: {path: app.py}}   # arguments: a subset
          observations:                   # what the model was shown for a call
            - {tool: read, path: label.txt, contains: [SENTINEL-LABEL-1]}
          trace_outline: |                # subset match, see assert_trace_shape
            agent.run
              agent.step
                tool.call read
          trajectory:                     # see assert_trajectory (also with a target)
            calls:                        # "name", "name path" or {name, args}
              - read label.txt            # (no args: any arguments)
              - {name: edit, args: {path: app.py}}
            match: superset               # strict | unordered | subset | superset | in_order
            args: superset                # exact | ignore | subset | superset
            per_tool: {edit: [path]}      # per tool: a mode or the keys that must be equal
            include_output_tools: false   # output tools (final_result...) are the answer
          judge:                          # graded by an LLM through the cassette
            rubric: The answer reports the label SENTINEL-LABEL-1 it wrote.

A conversation case holds a ``user:`` block instead of ``prompt:`` (see
:mod:`harness.conversations._spec` for the block, docs/conversations.md for a
guide), and may check the whole conversation::

        user: {persona: Dana, a customer., goal: Get order W-1001 refunded.}
        checks:
          said_contains: [SENTINEL-REFUND-1]   # in any agent turn
          said_not_contains: ["can't help"]    # in no agent turn
          state: {path: state.json, equals: {orders: {W-1001: refunded}}}
          max_turns: 4                         # user turns, at most
          conversation_end: user_stop          # user_stop | goal_reached | max_turns |
                                               # script_end | no_branch | user_silent

Honesty rule, checked at load time: a sentinel the answer or a file must contain
may not appear in the prompt (or the user block), or the model could pass by
repeating its task.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import InitErrorDetails

from harness.conversations import UserSpec
from harness.core.errors import ConfigurationError
from harness.evals.builtin_checks import BUILTIN_CHECKS
from harness.evals.check import Check, needs_runtime
from harness.evals.check_configs import (
    CallSpec,
    ConversationEnd,
    FileCheck,
    JudgeSpec,
    ObservationCheck,
    StateCheck,
    StopReasonName,
    TrajectoryCall,
    TrajectorySpec,
)
from harness.evals.check_registry import config_adapter, import_checks, registered_checks
from harness.evals.request_spec import RequestSpec
from harness.yamlload import DocumentBoundsError, YamlSyntaxError, load_yaml

__all__ = [
    "ApprovalStep",
    "CallSpec",
    "Case",
    "CaseChecks",
    "FileCheck",
    "JudgeSpec",
    "ObservationCheck",
    "StateCheck",
    "TrajectoryCall",
    "TrajectorySpec",
    "case_sources",
    "load_case_file",
    "load_cases",
]

_STRICT = ConfigDict(frozen=True, extra="forbid")
Mode = Literal["act", "plan", "think", "plan-act"]


class ApprovalStep(BaseModel):
    """The run must pause for ``tool``; the human then takes ``decision``."""

    model_config = _STRICT

    tool: str = Field(min_length=1)
    decision: Literal["approve", "reject"]
    reason: str | None = None

    @model_validator(mode="after")
    def _reason_for_reject(self) -> ApprovalStep:
        if self.decision == "approve" and self.reason is not None:
            raise ValueError("a reason is given only with decision: reject")
        return self


class CaseChecks(BaseModel):
    """Every verdict a case asks for; each one set must hold."""

    model_config = _STRICT

    stop_reason: StopReasonName = "final"
    steps: int | None = Field(default=None, ge=1)
    files: tuple[FileCheck, ...] = ()
    answer_contains: tuple[str, ...] = ()
    answer_not_contains: tuple[str, ...] = ()
    tools_called: dict[str, int] = Field(default_factory=dict)
    tools_failed: dict[str, int] = Field(default_factory=dict)
    tools_not_called: tuple[str, ...] = ()
    calls: tuple[CallSpec, ...] | None = None
    observations: tuple[ObservationCheck, ...] = ()
    trace_outline: str | None = None
    trajectory: TrajectorySpec | None = None
    judge: JudgeSpec | None = None
    # Conversations (a case with ``user:``): what the agent said in any turn, the
    # state file after, how many user turns at most, and why it ended.
    said_contains: tuple[str, ...] = ()
    said_not_contains: tuple[str, ...] = ()
    state: StateCheck | None = None
    max_turns: int | None = Field(default=None, ge=1)
    conversation_end: ConversationEnd | None = None

    @field_validator("tools_called", "tools_failed")
    @classmethod
    def _counts(cls, value: dict[str, int]) -> dict[str, int]:
        bad = sorted(name for name, count in value.items() if count < 1)
        if bad:
            raise ValueError(f"counts must be >= 1 (use tools_not_called for 0): {bad}")
        return value

    # The values of the registered checks that are not harness's own, by key.
    _custom: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="wrap")
    @classmethod
    def _registered(cls, data: Any, handler: ModelWrapValidatorHandler[CaseChecks]) -> CaseChecks:
        """Validate the keys of checks you registered (register_check) by their config;
        any other key is left to the fields, where an unknown one is refused."""
        custom: dict[str, Any] = {}
        if isinstance(data, Mapping):
            registered = registered_checks()
            mine = {k: v for k, v in data.items() if k not in cls.model_fields and k in registered}
            data = {k: v for k, v in data.items() if k not in mine}
            custom = {key: _validate_custom(key, value) for key, value in mine.items()}
        checks = handler(data)
        checks._custom = custom
        return checks._can_fail()  # here, not an "after" validator: it reads _custom

    def _can_fail(self) -> CaseChecks:
        if not any(check.can_fail(value) for check, value in self.asked()):
            keys = list(registered_checks())
            raise ValueError(f"a case needs a check that can fail: one of {', '.join(keys)}")
        clash = set(self.tools_called) & set(self.tools_not_called)
        if clash:
            raise ValueError(f"tools both called and not called: {sorted(clash)}")
        return self

    def asked(self) -> list[tuple[Check, Any]]:
        """Every check with its value, in the order of their failure lines: harness's
        own (each with its default when the case does not give it), then yours."""
        registered = registered_checks()
        own: list[tuple[Check, Any]] = [(c, getattr(self, c.key)) for c in BUILTIN_CHECKS]
        return own + [(registered[key], value) for key, value in self._custom.items()]

    def given(self) -> frozenset[str]:
        """The keys the case file gave."""
        return frozenset(self.model_fields_set | set(self._custom))

    def sentinels(self) -> tuple[str, ...]:
        """The strings the answer or a file must contain: the model must find them."""
        found = [*self.answer_contains, *self.said_contains]
        for check in self.files:
            found += check.contains
        return tuple(found)


def _validate_custom(key: str, value: Any) -> Any:
    try:
        return config_adapter(key).validate_python(value)
    except ValidationError as exc:
        # Raised again with the key in front, so the message names checks.<key>.<field>.
        details = [
            InitErrorDetails(
                type=e["type"], loc=(key, *e["loc"]), input=e["input"], ctx=e.get("ctx", {})
            )
            for e in exc.errors()
        ]
        raise ValidationError.from_exception_data("CaseChecks", details) from None


class Case(BaseModel):
    """One scenario: a workspace, a prompt, how to run it, and what must hold."""

    model_config = _STRICT

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    workspace: str = Field(min_length=1)
    # One prompt, or a simulated ``user`` (a conversation, harness.conversations).
    prompt: str | None = Field(default=None, min_length=1)
    user: UserSpec | None = None
    mode: Mode = "act"
    tools: tuple[str, ...] = ("read",)
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    max_steps: int = Field(default=8, ge=1, le=100)
    session: str | None = None
    approval: ApprovalStep | None = None
    # ``package.module:function`` of an agent harness did not build; called as
    # ``fn(prompt: str, workspace: Path) -> str`` under ``llm_cassette``.
    target: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    # The llm_cassette profile of a target (e.g. ``openai-agents``, ``pydantic-ai``).
    profile: str | None = None
    checks: CaseChecks
    # Checks on what the run sent: model, effort, system digest, tools, prefix.
    request: RequestSpec | None = None
    # Where it was read from, for messages; not part of the file format.
    source: str = Field(default="", exclude=True)

    @model_validator(mode="after")
    def _honest(self) -> Case:
        if (self.prompt is None) == (self.user is None):
            raise ValueError("give a prompt (one task) or a user block (a conversation), not both")
        told = (self.prompt,) if self.prompt is not None else self.user.texts()  # type: ignore[union-attr]
        leaked = [s for s in self.checks.sentinels() if any(s in text for text in told)]
        if leaked:
            where = "prompt" if self.prompt is not None else "user block"
            raise ValueError(
                f"the {where} contains the sentinel(s) {leaked} the checks look for; the model "
                "could pass by repeating its task. Put the value in a workspace file instead"
            )
        self._conversation_checks()
        if self.approval is not None and self.approval.tool not in self.tools:
            raise ValueError(f"approval.tool {self.approval.tool!r} is not in tools")
        if self.profile is not None and self.target is None:
            raise ValueError("profile applies to a case with a target (an agent of your own)")
        if self.target is not None:
            given = self.checks.given()
            runtime = {check.key for check, _ in self.checks.asked() if needs_runtime(check)}
            asked = runtime & given | ({"approval"} if self.approval is not None else set())
            if asked:
                allowed = sorted(set(registered_checks()) - runtime)
                raise ValueError(
                    f"{', '.join(sorted(asked))} need(s) harness's own runtime; a case with a "
                    f"target can check {', '.join(allowed)}"
                )
        return self

    def _conversation_checks(self) -> None:
        checks = self.checks
        talk = {check.key for check, _ in checks.asked() if "conversation" in check.reads}
        asked = sorted(talk & checks.given())
        if self.user is None:
            if asked:
                raise ValueError(f"{', '.join(asked)} check(s) a conversation: give a user block")
            return
        if self.approval is not None:
            raise ValueError("approval is for one-prompt cases; a conversation case has none")
        if self.user.stop.on_goal and checks.state is None:
            raise ValueError("user.stop.on_goal needs the goal: a checks.state block")
        if checks.max_turns is not None and checks.max_turns > self.user.stop.max_turns:
            raise ValueError(
                f"checks.max_turns {checks.max_turns} exceeds user.stop.max_turns "
                f"{self.user.stop.max_turns}: it could never fail"
            )

    @property
    def task(self) -> str:
        """What the agent is asked to do: the prompt, or the user's goal."""
        if self.prompt is not None:
            return self.prompt
        assert self.user is not None
        return self.user.goal

    @property
    def session_name(self) -> str:
        return self.session or f"case-{self.name}"


class _CaseFile(BaseModel):
    model_config = _STRICT

    version: Literal[1] = 1
    # Checks of your own, imported before the cases are read: "package.module"
    # (its import registers them) or "package.module:attribute" (a Check or a list).
    checks_from: tuple[str, ...] = ()
    cases: list[dict[str, Any]] = Field(min_length=1)


_STRING_LISTS = frozenset(
    {"contains", "not_contains", "answer_contains", "answer_not_contains", "tools_not_called"}
    | {"tools", "allow", "deny", "said_contains", "said_not_contains", "any", "checks_from"}
)


def _where(loc: Iterable[int | str]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _first_error(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    # A misspelt key also leaves the field it meant missing: name the spelling first.
    error = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] in ("tuple_type", "list_type") and error["loc"]:
        listed = error["loc"][-1] in _STRING_LISTS
        message = "expected a list of strings" if listed else "expected a list"
    elif error["type"] == "extra_forbidden":
        message = "unknown field; check its spelling against the case format"
        if len(error["loc"]) == 2 and error["loc"][0] == "checks":
            message += " (a check of your own: register it, see checks_from)"
    return f"{_where(error['loc'])}: {message}"


def _display(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            pass
    return path.as_posix()


def load_case_file(path: Path, *, root: Path | None = None) -> list[Case]:
    """Read and validate one case file.

    Raises:
        ConfigurationError: one clear message naming the file, the case and the field.
    """
    shown = _display(path, root)
    try:
        data = load_yaml(path.read_text("utf-8"), source=shown)
    except DocumentBoundsError as exc:
        raise ConfigurationError(str(exc)) from None
    except YamlSyntaxError as exc:
        raise ConfigurationError(
            f"{shown}: cannot read the case file: it is not valid YAML ({exc.detail})"
        ) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ConfigurationError(f"{shown}: cannot read the case file: {exc}") from exc
    try:
        document = _CaseFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigurationError(
            f"{shown}: {_first_error(exc)} (a case file is `version: 1` and a list `cases:`)"
        ) from exc
    for spec in document.checks_from:
        try:
            import_checks(spec)
        except ConfigurationError as exc:
            raise ConfigurationError(f"{shown}: {exc}") from None
    cases: list[Case] = []
    for index, raw in enumerate(document.cases):
        label = f"case {raw['name']!r}" if isinstance(raw.get("name"), str) else f"cases[{index}]"
        try:
            cases.append(Case.model_validate({**raw, "source": shown}))
        except ValidationError as exc:
            raise ConfigurationError(f"{shown}: {label}: {_first_error(exc)}") from exc
    return cases


def case_sources(folder: Path) -> list[Path]:
    """The case files of ``folder``, sorted (``*.yaml`` and ``*.yml``)."""
    return sorted(p for p in folder.glob("*.y*ml") if p.suffix in (".yaml", ".yml"))


def load_cases(folder: Path, *, root: Path | None = None) -> list[Case]:
    """Every case of every file in ``folder``; names must be unique across the folder.

    Raises:
        ConfigurationError: the folder is missing, a file is invalid, or a name repeats.
    """
    if not folder.is_dir():
        raise ConfigurationError(
            f"case folder {folder} does not exist; create it or point --harness-cases at one"
        )
    cases: list[Case] = []
    seen: dict[str, str] = {}
    for path in case_sources(folder):
        for case in load_case_file(path, root=root):
            if case.name in seen:
                raise ConfigurationError(
                    f"{case.source}: case {case.name!r}: name already used in {seen[case.name]}; "
                    "case names must be unique"
                )
            seen[case.name] = case.source
            cases.append(case)
    return cases
