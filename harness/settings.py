"""Settings: every knob of harness, read from ``HARNESS_*`` variables by ``from_env``."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator

from harness.core.errors import ConfigurationError
from harness.core.urls import shown_url, url_problem
from harness.core.wires import runtime_wires

__all__ = ["BUILTIN_TOOL_NAMES", "PROVIDER_NAMES", "Settings"]

BUILTIN_TOOL_NAMES = ("read", "write", "edit", "bash", "explore")
# The offline providers, every ready runtime wire of the registry, and ``claude``
# (another name of ``anthropic``).
PROVIDER_NAMES = ("echo", "scripted", *(w.name for w in runtime_wires()), "claude")
TRACE_MODES = ("off", "metadata", "replay")
APPROVAL_PROVIDERS = ("off", "cli", "feishu")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# variable -> (field, kind); kind tells from_env how to parse the text.
_ENV: dict[str, tuple[str, str]] = {
    "HARNESS_PROVIDER": ("provider", "str"),
    "HARNESS_MODEL": ("model", "str"),
    "HARNESS_BASE_URL": ("base_url", "str"),
    "HARNESS_WORKDIR": ("workdir", "path"),
    "HARNESS_STATE_DIR": ("state_dir", "path"),
    "HARNESS_ENABLED_TOOLS": ("enabled_tools", "list"),
    "HARNESS_TOOL_ALLOWLIST": ("tool_allowlist", "list"),
    "HARNESS_TOOL_DENYLIST": ("tool_denylist", "list"),
    "HARNESS_LOG_LEVEL": ("log_level", "str"),
    "HARNESS_MAX_STEPS": ("max_steps", "int"),
    "HARNESS_SCRIPT": ("script", "path"),
    "HARNESS_TRACE_MODE": ("trace_mode", "str"),
    "HARNESS_TRACE_MAX_PAYLOAD_CHARS": ("trace_max_payload_chars", "int"),
    "HARNESS_MAX_PARALLEL_TOOLS": ("max_parallel_tools", "int"),
    "HARNESS_MAX_RETRIES": ("max_retries", "int"),
    "HARNESS_STREAM": ("stream", "bool"),
    "HARNESS_CONTEXT_MAX_CHARS": ("context_max_chars", "int"),
    "HARNESS_APPROVAL_PROVIDER": ("approval_provider", "str"),
    "HARNESS_APPROVAL_REQUIRED_TOOLS": ("approval_required_tools", "list"),
    "HARNESS_APPROVAL_TIMEOUT_SECONDS": ("approval_timeout_seconds", "int"),
    "HARNESS_SUBAGENT_MAX_RESULT_CHARS": ("subagent_max_result_chars", "int"),
    "HARNESS_EDIT_FUZZY_THRESHOLD": ("edit_fuzzy_threshold", "float"),
    "HARNESS_CASSETTE": ("cassette", "path"),
    "HARNESS_RECORD_MODE": ("record_mode", "str"),
    "HARNESS_APPROVAL_KEY": ("approval_key", "str"),
    "HARNESS_BASH_SANDBOX": ("bash_sandbox", "str"),
    "HARNESS_BASH_NETWORK": ("bash_network", "bool"),
    "HARNESS_BASH_ENV": ("bash_env", "list"),
    "HARNESS_BASH_MEMORY_MB": ("bash_memory_mb", "int"),
    "HARNESS_BASH_PROCESSES": ("bash_processes", "int"),
    "HARNESS_BASH_FILE_MB": ("bash_file_mb", "int"),
    "HARNESS_BASH_CPU_SECONDS": ("bash_cpu_seconds", "int"),
    "HARNESS_BASH_OUTPUT_MB": ("bash_output_mb", "int"),
    "HARNESS_SENSITIVE_PATHS": ("sensitive_paths", "list"),
    "HARNESS_OTEL": ("otel", "str"),
    "HARNESS_JUDGE_MODEL": ("judge_model", "str"),
    "HARNESS_UNDO_BUDGET": ("undo_budget", "int"),
    "HARNESS_APPLY_BUDGET": ("apply_budget", "int"),
    "HARNESS_MCP_SERVERS": ("mcp_servers", "path"),
}
_FIELD_TO_ENV = {field: env for env, (field, _) in _ENV.items()}


def _choice(value: str, allowed: tuple[str, ...], field: str) -> str:
    if value not in allowed:
        raise ValueError(f"is not one of the choices; use one of {', '.join(allowed)}")
    return value


class Settings(BaseModel):
    """All configuration; every field has a default.

    Build it directly in Python, or from the environment with ``from_env()``
    (variables ``HARNESS_<FIELD>``; lists are comma-separated).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str = "echo"
    model: str | None = None
    base_url: str | None = None
    workdir: Path = Field(default_factory=Path.cwd)
    state_dir: Path | None = None
    enabled_tools: tuple[str, ...] = ("read",)
    tool_allowlist: tuple[str, ...] = ()
    tool_denylist: tuple[str, ...] = ()
    log_level: str = "WARNING"
    max_steps: int = Field(default=8, ge=1, le=1000)
    script: Path | None = None
    trace_mode: Literal["off", "metadata", "replay"] = "metadata"
    trace_max_payload_chars: int = Field(default=4000, ge=100)
    max_parallel_tools: int = Field(default=8, ge=1, le=64)
    max_retries: int = Field(default=2, ge=0, le=10)
    stream: bool = False
    max_tokens: int | None = Field(default=None, ge=1)
    context_max_chars: int = Field(default=200_000, ge=1000)
    approval_provider: Literal["off", "cli", "feishu"] = "cli"
    approval_required_tools: tuple[str, ...] = ("bash", "write", "edit")
    approval_timeout_seconds: int = Field(default=3600, ge=1)
    subagent_max_result_chars: int = Field(default=4000, ge=200)
    edit_fuzzy_threshold: float | None = Field(default=None, gt=0.0, le=1.0)
    cassette: Path | None = None
    record_mode: Literal["none", "once", "new_episodes", "all", "rewrite"] = "none"
    system_prompt: str | None = None
    # A secret: SecretStr keeps it out of repr, dumps and `harness health`.
    approval_key: SecretStr | None = None
    bash_sandbox: Literal["auto", "required", "off"] = "auto"
    bash_network: bool = False
    bash_env: tuple[str, ...] = ()
    # Limits of each bash call (harness.tools.sandbox._limits); 0 switches one off.
    bash_memory_mb: int = Field(default=8192, ge=0)
    bash_processes: int = Field(default=512, ge=0)
    bash_file_mb: int = Field(default=4096, ge=0)
    bash_cpu_seconds: int = Field(default=300, ge=0)
    bash_output_mb: int = Field(default=64, ge=0)
    # Changes to files that run code later (CI, build files) need approval: glob
    # patterns added (`+PATTERN` or `PATTERN`) to or removed (`-PATTERN`) from the
    # defaults (harness.effects.codepaths).
    sensitive_paths: tuple[str, ...] = ()
    # Mirror traces to OpenTelemetry (the otel extra); OTEL_* variables are the SDK's.
    otel: Literal["off", "console", "otlp"] = "off"
    # The model a case's recorded judge asks (None: the run's own model).
    judge_model: str | None = None
    # Bytes of prior content one applied change may keep in the undo journal, and
    # new bytes it may write; a change over either pauses for a human.
    undo_budget: int = Field(default=64 * 1024 * 1024, ge=0)
    apply_budget: int = Field(default=256 * 1024 * 1024, ge=0)
    # A JSON file in the ``mcpServers`` shape: those servers' tools join the builtins.
    mcp_servers: Path | None = None

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

    @property
    def resolved_state_dir(self) -> Path:
        return (self.state_dir or self.workdir / ".harness").resolve()

    @property
    def provider_name(self) -> str:
        return "anthropic" if self.provider == "claude" else self.provider

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """Read ``HARNESS_*`` variables; bad values raise ``ConfigurationError``.

        Tool names are checked against the builtin tools, naming the variable
        and the valid names.
        """
        env = os.environ if environ is None else environ
        values: dict[str, Any] = {}
        for variable, (field, kind) in _ENV.items():
            raw = env.get(variable)
            if raw is None or raw.strip() == "":
                continue
            values[field] = _parse(variable, raw, kind)
        values.update(overrides)
        for field in ("enabled_tools", "tool_allowlist", "tool_denylist"):
            # ``server__tool`` names an MCP tool: build_application checks it once listed.
            names = [name for name in values.get(field, ()) if "__" not in name]
            check_tool_names(names, BUILTIN_TOOL_NAMES, _FIELD_TO_ENV[field])
        return cls.build(**values)

    @classmethod
    def build(cls, **values: Any) -> Settings:
        """Construct, turning validation errors into one ``ConfigurationError``."""
        try:
            return cls(**values)
        except ValidationError as exc:
            raise ConfigurationError(_explain(exc)) from None


def check_tool_names(names: Any, known: tuple[str, ...] | list[str], variable: str) -> None:
    unknown = [name for name in names if name not in known]
    if unknown:
        raise ConfigurationError(
            f"{variable}: unknown tool name(s) {', '.join(map(repr, unknown))}; "
            f"valid names: {', '.join(known)}"
        )


def _parse(variable: str, raw: str, kind: str) -> Any:
    text = raw.strip()
    if kind == "list":
        return tuple(part.strip() for part in text.split(",") if part.strip())
    if kind == "path":
        return Path(text).expanduser()
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("1", "true", "yes", "on"):
            return True
        if lowered in ("0", "false", "no", "off"):
            return False
        raise ConfigurationError(f"{variable}={raw!r} is not a boolean; use true or false")
    if kind in ("int", "float"):
        try:
            return int(text) if kind == "int" else float(text)
        except ValueError:
            raise ConfigurationError(
                f"{variable}={raw!r} is not a{'n integer' if kind == 'int' else ' number'}"
            ) from None
    return text


def _explain(exc: ValidationError) -> str:
    problems = []
    for error in exc.errors(include_url=False):
        field = str(error["loc"][0]) if error["loc"] else "?"
        variable = _FIELD_TO_ENV.get(field, field)
        given = error.get("input")
        # A login written into the base URL stays out of the message.
        url = field == "base_url" and isinstance(given, str)
        shown = shown_url(str(given)) if url else repr(given)
        problems.append(f"{variable}={shown} {_plain(error)}")
    return "invalid settings: " + "; ".join(problems)


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
