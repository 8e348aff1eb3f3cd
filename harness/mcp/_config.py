"""The MCP servers of an application: the usual ``mcpServers`` JSON shape, validated.

A file (``HARNESS_MCP_SERVERS``) or a mapping (``build_application(mcp_servers=...)``)::

    {"mcpServers": {
        "files": {"command": "python", "args": ["-m", "my_server"], "env": {"ROOT": "."}},
        "search": {"url": "http://127.0.0.1:8000/mcp", "headers": {"Authorization": "${TOKEN}"},
                   "approval": "never", "timeout": 30}}}

Each server runs over stdio (``command``) or streamable HTTP (``url``). Besides the
common keys, harness reads ``approval`` (``"always"``, the default: every call of the
server's tools waits for a human as ``bash`` does; ``"never"``), ``trustReadOnlyHints``
(a tool the server marks ``readOnlyHint`` then runs without approval; off by default,
since the hint is the server's word, not a guarantee), ``timeout`` (seconds a call may
take), ``startupTimeout`` and ``disabled``. ``${NAME}`` in a command, argument, env
value, URL or header is the environment variable, read when the server starts, so a
config file never needs to hold a key.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from harness.core.errors import ConfigurationError
from harness.core.urls import shown_url, url_problem

__all__ = [
    "McpConfig",
    "McpRecording",
    "McpServerConfig",
    "expand_env",
    "load_mcp_config",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


class McpServerConfig(BaseModel):
    """One server: a command (stdio) or a URL (streamable HTTP), and how to trust it."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    type: Literal["stdio", "http", "streamable-http", "streamableHttp"] | None = None
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    approval: Literal["always", "never"] = "always"
    trust_read_only_hints: bool = Field(default=False, alias="trustReadOnlyHints")
    timeout: float = Field(default=60.0, gt=0, le=3600)
    startup_timeout: float = Field(default=30.0, gt=0, le=600, alias="startupTimeout")
    disabled: bool = False

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either 'command' (a stdio server) or 'url' (streamable HTTP)")
        if self.type == "stdio" and self.command is None:
            raise ValueError("type 'stdio' needs a 'command'")
        if self.type not in (None, "stdio") and self.url is None:
            raise ValueError(f"type {self.type!r} needs a 'url'")
        if self.url is not None and "${" not in self.url:
            problem = url_problem(self.url)
            if problem is not None:
                raise ValueError(f"url {shown_url(self.url)}: {problem}")
        return self

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"

    @property
    def program(self) -> str:
        """What a cassette names the server by: its program or its URL without query
        (arguments and query strings may hold a key)."""
        if self.command is not None:
            return Path(self.command).name
        return shown_url(self.url or "").partition("?")[0]

    @property
    def target(self) -> str:
        """What the server is, for messages: its command line or its URL (no login)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return shown_url(self.url or "")


@dataclass(frozen=True, slots=True)
class McpRecording:
    """Where the servers' exchanges are recorded or replayed from (the pytest plugin's)."""

    cassette: Path
    record_mode: str = "none"
    block_live: bool = False


class McpConfig(BaseModel):
    """Every configured server by name, where the config came from, and its recording."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    servers: dict[str, McpServerConfig]
    source: str = "mcp_servers"
    recording: McpRecording | None = None

    def enabled(self) -> dict[str, McpServerConfig]:
        return {name: server for name, server in self.servers.items() if not server.disabled}

    def with_recording(self, recording: McpRecording | None) -> McpConfig:
        return self.model_copy(update={"recording": recording})


def load_mcp_config(value: Any, *, source: str | None = None) -> McpConfig | None:
    """An ``McpConfig`` from a mapping, a path to a JSON file, or one already built.

    The mapping may be the whole file (``{"mcpServers": {...}}``) or its inner mapping.

    Raises:
        ConfigurationError: unreadable file, bad JSON, an unknown key or a bad value,
            in one line naming the server and the fix.
    """
    if value is None or isinstance(value, McpConfig):
        return value
    if isinstance(value, str | os.PathLike):
        path = Path(value).expanduser()
        from harness.jsonload import load_json

        try:
            text = path.read_text("utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"MCP servers file {str(path)!r} (HARNESS_MCP_SERVERS) cannot be read: "
                f"{exc.strerror or exc}; point it at a JSON file of mcpServers"
            ) from None
        try:
            data = load_json(text, source=str(path))
        except ValueError as exc:
            problem = str(exc).strip().splitlines()[0] if str(exc).strip() else "not JSON"
            raise ConfigurationError(
                f"MCP servers file {str(path)!r} (HARNESS_MCP_SERVERS) is not valid JSON: "
                f"{problem}; fix it or point HARNESS_MCP_SERVERS elsewhere"
            ) from None
        return load_mcp_config(data, source=str(path))
    where = source or "mcp_servers"
    if not isinstance(value, Mapping):
        raise ConfigurationError(
            f"{where}: expected a mapping of server names (the mcpServers JSON shape), "
            f"got {type(value).__name__}"
        )
    inner = value.get("mcpServers", value) if "mcpServers" in value else value
    if not isinstance(inner, Mapping):
        raise ConfigurationError(f"{where}: 'mcpServers' must map server names to servers")
    servers: dict[str, McpServerConfig] = {}
    for name, entry in inner.items():
        servers[str(name)] = _server(str(name), entry, where)
    return McpConfig(servers=servers, source=where)


def _server(name: str, entry: Any, where: str) -> McpServerConfig:
    if not _NAME.fullmatch(name) or "__" in name:
        raise ConfigurationError(
            f"{where}: MCP server name {name!r} is invalid; use letters, digits, '_' or '-' "
            "(no '__': it separates server and tool in tool names)"
        )
    if not isinstance(entry, Mapping):
        raise ConfigurationError(f"{where}: MCP server {name!r} must be an object")
    try:
        return McpServerConfig.model_validate(dict(entry))
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            field = ".".join(str(part) for part in error["loc"]) or "server"
            message = str(error["msg"]).removeprefix("Value error, ")
            if error["type"] == "extra_forbidden":
                message = "is not a key harness knows; check the spelling"
            problems.append(f"{field} {message}" if error["loc"] else message)
        raise ConfigurationError(f"{where}: MCP server {name!r}: " + "; ".join(problems)) from None


def expand_env(text: str, environ: Mapping[str, str] | None = None) -> str:
    """``${NAME}`` (or ``${NAME:-default}``) replaced by the environment's value.

    Raises:
        ConfigurationError: a variable without a default is not set.
    """
    env = os.environ if environ is None else environ

    def value(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        if name in env:
            return env[name]
        if default is not None:
            return default
        raise ConfigurationError(
            f"MCP server config names ${{{name}}}, which is not set; set it or write "
            f"${{{name}:-default}}"
        )

    return _VARIABLE.sub(value, text)
