"""Settings: every knob of harness, one pydantic-settings model.

``Settings(...)`` takes only what it is given (every field has a default);
``Settings.from_env()`` reads, highest first: its keyword arguments, the
``HARNESS_<FIELD>`` variables, ``./.env``, the defaults. Each field's
``description`` is its line in docs/reference/settings.md.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from harness.core.errors import ConfigurationError
from harness.core.urls import shown_url, url_problem
from harness.core.wires import runtime_wires
from harness.settings._environ import environment, variable_of

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "PROVIDER_NAMES",
    "MappingSource",
    "Settings",
    "check_tool_names",
    "explain",
]

BUILTIN_TOOL_NAMES = ("read", "write", "edit", "bash", "explore")
# The offline providers, every ready runtime wire of the registry, and ``claude``
# (another name of ``anthropic``).
PROVIDER_NAMES = ("echo", "scripted", *(w.name for w in runtime_wires()), "claude")
TRACE_MODES = ("off", "metadata", "replay")
APPROVAL_PROVIDERS = ("off", "cli", "feishu")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
_LISTS = ("enabled_tools", "tool_allowlist", "tool_denylist", "approval_required_tools")
_PATHS = ("workdir", "state_dir", "script", "mcp_servers", "eval_tmpdir", "prices")

# The environment ``from_env`` is reading; unset, a model takes only its arguments.
_READING: ContextVar[Mapping[str, str] | None] = ContextVar("harness_settings", default=None)


def _shown(text: str) -> dict[str, Any]:
    """The default as the settings reference shows it, when the real one says little."""
    return {"shown_default": text}


_PYTHON_ONLY: dict[str, Any] = {"python_only": True}


def _choice(value: str, allowed: tuple[str, ...], field: str) -> str:
    if value not in allowed:
        raise ValueError(f"is not one of the choices; use one of {', '.join(allowed)}")
    return value


class MappingSource(PydanticBaseSettingsSource):
    """Each field's variable, looked up in one mapping; the text goes to the validators.

    ``variables`` maps a field to its variable (fields not in it are not read).
    Blank values count as unset, as an empty ``export`` means "not set" to a shell user.
    """

    def __init__(
        self,
        settings_cls: type[BaseSettings],
        environ: Mapping[str, str],
        variables: Mapping[str, str],
    ) -> None:
        super().__init__(settings_cls)
        self.environ = environ
        self.variables = variables

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        variable = self.variables.get(field_name)
        raw = self.environ.get(variable, "").strip() if variable else ""
        return (raw or None), field_name, False

    def __call__(self) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for name, info in self.settings_cls.model_fields.items():
            value, _, _ = self.get_field_value(info, name)
            if value is not None:
                values[name] = value
        return values


def _variables() -> dict[str, str]:
    """Field -> the variable that sets it, for every field the environment may set."""
    return {
        name: variable_of(name)
        for name, info in Settings.model_fields.items()
        if not (
            isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("python_only")
        )
    }


class EnvironSettings(BaseSettings):
    """A settings model that reads its variables from one mapping, inside ``reading``.

    Outside ``reading`` it takes only its arguments. The mapping is what
    ``environment`` gives: the process environment laid over ``./.env``.
    """

    @classmethod
    def env_variables(cls) -> dict[str, str]:
        """Field -> the variable it is read from; each model names its own."""
        raise NotImplementedError

    @classmethod
    @contextmanager
    def reading(cls, environ: Mapping[str, str] | None) -> Iterator[None]:
        """Models built inside read ``environ`` (the real environment when None)."""
        token = _READING.set(environment(environ))
        try:
            yield
        finally:
            _READING.reset(token)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        environ = _READING.get()
        if environ is None:
            return (init_settings,)
        return (init_settings, MappingSource(settings_cls, environ, cls.env_variables()))


class Settings(EnvironSettings):
    """All configuration; every field has a default.

    Build it directly in Python (only the arguments count), or with ``from_env()``
    (arguments, then ``HARNESS_<FIELD>`` variables, then ``./.env``; lists are
    comma-separated).
    """

    model_config = SettingsConfigDict(frozen=True, extra="forbid", validate_default=False)

    provider: str = Field(
        default="echo",
        description="`echo`, `scripted`, "
        + ", ".join(f"`{w.name}`" for w in runtime_wires())
        + " (`claude`: another name of `anthropic`)",
    )
    model: str | None = Field(
        default=None, description="model name", json_schema_extra=_shown("provider default")
    )
    base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible / Anthropic base URL (e.g. the simulator "
        "`http://127.0.0.1:8765`)",
        json_schema_extra=_shown("SDK default"),
    )
    workdir: Path = Field(
        default_factory=Path.cwd,
        description="where tools work; tools cannot reach outside it",
        json_schema_extra=_shown("cwd"),
    )
    state_dir: Path | None = Field(
        default=None,
        description="where sessions, memory, traces, approvals live",
        json_schema_extra=_shown("`<workdir>/.harness`"),
    )
    enabled_tools: tuple[str, ...] = Field(
        default=("read",), description="tools the model may see: read, write, edit, bash, explore"
    )
    tool_allowlist: tuple[str, ...] = Field(
        default=(), description="policy: only these tools run (empty narrows nothing)"
    )
    tool_denylist: tuple[str, ...] = Field(
        default=(), description="policy: these tools never run (deny wins over allow)"
    )
    log_level: str = Field(default="WARNING", description="log level of the CLI (stderr)")
    max_steps: int = Field(default=8, ge=1, le=1000, description="step limit of a run")
    script: Path | None = Field(
        default=None,
        description="JSON/YAML turns for `HARNESS_PROVIDER=scripted` (and the simulator's "
        "script); the turn is chosen by the number of assistant turns already in the "
        "conversation, so run → approve works across processes",
    )
    trace_mode: Literal["off", "metadata", "replay"] = Field(
        default="metadata", description="`off`, `metadata` (no text), `replay` (redacted payloads)"
    )
    trace_max_payload_chars: int = Field(
        default=4000, ge=100, description="strings in `replay` payloads are cut to this length"
    )
    max_parallel_tools: int = Field(
        default=8, ge=1, le=64, description="threads for consecutive parallel-safe calls (`read`)"
    )
    max_retries: int = Field(
        default=2, ge=0, le=10, description="SDK retries of a failed model call"
    )
    stream: bool = Field(
        default=False, description="stream model responses (openai / openai-responses / anthropic)"
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        description="max output tokens per model call",
        json_schema_extra=_PYTHON_ONLY,
    )
    context_max_chars: int = Field(
        default=200_000,
        ge=1000,
        description="context size (chars) past which the oldest history is dropped, with a note",
    )
    approval_provider: Literal["off", "cli", "feishu"] = Field(
        default="cli", description="`off`, `cli`, `feishu`"
    )
    approval_required_tools: tuple[str, ...] = Field(
        default=("bash", "write", "edit"), description="tools judged by the risk policy"
    )
    approval_timeout_seconds: int = Field(default=3600, ge=1, description="approval expiry")
    subagent_max_result_chars: int = Field(
        default=4000, ge=200, description="longest Explorer report the parent sees"
    )
    edit_fuzzy_threshold: float | None = Field(
        default=None,
        gt=0.0,
        le=1.0,
        description="similarity floor of the `edit` tool's fuzzy stage; off if unset",
    )
    system_prompt: str | None = Field(
        default=None,
        description="system prompt of the agent (`{workdir}` is filled in)",
        json_schema_extra={**_PYTHON_ONLY, **_shown("built-in")},
    )
    # A secret: SecretStr keeps it out of repr, dumps and `harness health`.
    approval_key: SecretStr | None = Field(
        default=None,
        description="approval signing key; else `$XDG_STATE_HOME/harness/approval.key` "
        "(never shown)",
        json_schema_extra=_shown("key file"),
    )
    bash_sandbox: Literal["auto", "required", "off"] = Field(
        default="auto", description="`auto`, `required`, `off`: run bash in bubblewrap"
    )
    bash_network: bool = Field(default=False, description="let sandboxed bash reach the network")
    bash_env: tuple[str, ...] = Field(
        default=(),
        description="extra variable names passed to bash (secret-like names never are)",
    )
    # Limits of each bash call (harness.tools.sandbox._limits); 0 switches one off.
    bash_memory_mb: int = Field(
        default=8192,
        ge=0,
        description="writable memory of each process a bash call starts, in MB (0: none)",
    )
    bash_processes: int = Field(
        default=512, ge=0, description="processes and threads a bash call may start (0: no limit)"
    )
    bash_file_mb: int = Field(
        default=4096, ge=0, description="largest file a bash call may write, in MB (0: no limit)"
    )
    bash_cpu_seconds: int = Field(
        default=300,
        ge=0,
        description="CPU seconds of each process a bash call starts (0: no limit)",
    )
    bash_output_mb: int = Field(
        default=64,
        ge=0,
        description="output of a bash call harness reads before it stops it (0: none)",
    )
    # harness.effects._codepaths holds the defaults these patterns change.
    sensitive_paths: tuple[str, ...] = Field(
        default=(),
        description="files that run code later, whose changes need approval: comma-separated "
        "glob patterns, `+PATTERN` adds, `-PATTERN` removes a default",
        json_schema_extra=_shown("CI, build, hook files"),
    )
    otel: Literal["off", "console", "otlp"] = Field(
        default="off",
        description="`off`, `console` (stderr), `otlp` (OTLP/HTTP; standard `OTEL_*` "
        "variables); extra `otel`",
    )
    judge_model: str | None = Field(
        default=None,
        description="model a case's `judge` check asks (recorded through the test's cassette)",
        json_schema_extra=_shown("the run's model"),
    )
    undo_budget: int = Field(
        default=64 * 1024 * 1024,
        ge=0,
        description="bytes of prior content one change may keep in the undo journal; "
        "more pauses it",
        json_schema_extra=_shown("64 MiB"),
    )
    apply_budget: int = Field(
        default=256 * 1024 * 1024,
        ge=0,
        description="new bytes one change may write; more (or a sparse file) pauses it",
        json_schema_extra=_shown("256 MiB"),
    )
    mcp_servers: Path | None = Field(
        default=None,
        description="a JSON file in the `mcpServers` shape; those servers' tools join the "
        "builtins as `<server>__<tool>` (extra `mcp`)",
        json_schema_extra=_shown("none"),
    )
    # Read where they are used (harness.settings.env_value), not by build_application.
    debug: bool = Field(
        default=False, description="errors of the CLI print their traceback (`1` or `true`)"
    )
    live_hosts: tuple[str, ...] = Field(
        default=(),
        description="comma-separated public host names of gateways whose traffic a recording "
        "labels live",
    )
    eval_tmpdir: Path | None = Field(
        default=None,
        description="folder `harness eval` makes its scratch folders in",
        json_schema_extra=_shown("RAM disk if roomy, else the temp folder"),
    )
    prices: Path | None = Field(
        default=None,
        description="a price table whose models replace the shipped ones (cost figures)",
    )
    proxy_contain: str = Field(
        default="on",
        description="`on` (contain recorded commands where bwrap works) or `off`",
    )
    speed_off: tuple[str, ...] = Field(
        default=(),
        description="comma-separated speed tweaks to switch off, or `all`",
    )

    @field_validator(
        *_LISTS, "bash_env", "sensitive_paths", "live_hosts", "speed_off", mode="before"
    )
    @classmethod
    def _comma_list(cls, value: Any) -> Any:
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator(*_PATHS, mode="before")
    @classmethod
    def _user_path(cls, value: Any) -> Any:
        return Path(value.strip()).expanduser() if isinstance(value, str) else value

    @field_validator("provider")
    @classmethod
    def _provider(cls, value: str) -> str:
        return _choice(value.strip().lower(), PROVIDER_NAMES, "provider")

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        # Checked here, not when the SDK connects: ``127.0.0.1:8765`` would otherwise
        # surface as a missing API key or a connection error far from its cause.
        if value is None or not value.strip():
            return None
        problem = url_problem(value)
        if problem is not None:
            raise ValueError(problem)
        return value.strip()

    @field_validator("log_level")
    @classmethod
    def _log_level(cls, value: str) -> str:
        return _choice(value.strip().upper(), LOG_LEVELS, "log_level")

    @field_validator("sensitive_paths")
    @classmethod
    def _sensitive_paths(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for entry in value:
            if not entry.strip().lstrip("+-").strip() or "\0" in entry:
                raise ValueError(
                    f"entry {entry!r} names no pattern; write +PATTERN to add a glob "
                    "pattern or -PATTERN to remove a default one"
                )
        return value

    @classmethod
    def env_variables(cls) -> dict[str, str]:
        """Field -> the ``HARNESS_*`` variable ``from_env`` reads it from."""
        return _variables()

    @property
    def resolved_state_dir(self) -> Path:
        return (self.state_dir or self.workdir / ".harness").resolve()

    @property
    def provider_name(self) -> str:
        return "anthropic" if self.provider == "claude" else self.provider

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """``overrides``, then ``HARNESS_*`` variables, then ``./.env``, then the defaults.

        ``environ`` given stands for the whole environment (no ``./.env``). Bad values
        raise ``ConfigurationError`` naming the variable; tool names are checked
        against the builtin tools.
        """
        with cls.reading(environ):
            settings = cls.build(**overrides)
        for field in ("enabled_tools", "tool_allowlist", "tool_denylist"):
            # ``server__tool`` names an MCP tool: build_application checks it once listed.
            names = [name for name in getattr(settings, field) if "__" not in name]
            check_tool_names(names, BUILTIN_TOOL_NAMES, variable_of(field))
        return settings

    @classmethod
    def build(cls, **values: Any) -> Settings:
        """Construct, turning validation errors into one ``ConfigurationError``."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigurationError(explain(exc, _variables())) from None


def check_tool_names(names: Any, known: tuple[str, ...] | list[str], variable: str) -> None:
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigurationError(
            f"{variable}: unknown tool name(s) {', '.join(map(repr, unknown))}; "
            f"valid names: {', '.join(known)}"
        )


def explain(exc: ValidationError, variables: Mapping[str, str], what: str = "settings") -> str:
    """One line naming each bad value by its variable (by its field when it has none)."""
    problems = []
    for error in exc.errors(include_url=False):
        field = str(error["loc"][0]) if error["loc"] else "?"
        variable = variables.get(field, field)
        given = error.get("input")
        # A login written into the base URL stays out of the message.
        url = field == "base_url" and isinstance(given, str)
        shown = shown_url(str(given)) if url else repr(given)
        problems.append(f"{variable}={shown} {_plain(error)}")
    return f"invalid {what}: " + "; ".join(problems)


def _plain(error: Any) -> str:
    """Pydantic's complaint in plain words (no ``Value error,``, no URL)."""
    kind = str(error["type"])
    ctx = error.get("ctx") or {}
    if kind == "greater_than_equal":
        return f"is too small; use at least {ctx['ge']}"
    if kind == "greater_than":
        return f"is too small; use more than {ctx['gt']}"
    if kind == "less_than_equal":
        return f"is too large; use at most {ctx['le']}"
    if kind == "less_than":
        return f"is too large; use less than {ctx['lt']}"
    if kind == "literal_error":
        return f"is not one of the choices; use one of {ctx['expected']}"
    if kind in ("int_parsing", "int_type", "int_from_float"):
        return "is not a whole number"
    if kind in ("float_parsing", "float_type"):
        return "is not a number"
    if kind in ("bool_parsing", "bool_type"):
        return "is not a boolean; use true or false"
    if kind == "extra_forbidden":
        return "is not a setting; check the spelling"
    message = str(error["msg"]).removeprefix("Value error, ")
    return message if kind == "value_error" else f"is invalid: {message}"
