"""Where settings come from: the process environment over ``./.env``, or a given mapping.

Kept free of pydantic-settings so that a module wanting one variable (the
pytest plugin, a trace writer) does not pay for the model's import.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from harness.core.errors import ConfigurationError

__all__ = ["PREFIX", "TRUST_FIELDS", "env_value", "environment", "variable_of"]

PREFIX = "HARNESS_"
DOTENV = Path(".env")

# What a run may do, as opposed to what it looks like: who approves, what bash can
# reach, which commands start as MCP servers, where state and traces go. A `.env`
# comes with the repository an agent works on (a clone, a pull request), and
# harness must not take its permissions from the code it is there to contain;
# these come from the process environment or arguments only. The base URL is one:
# it is where the provider keys are sent. The signing key is
# one too: a `.env` in the workspace is a file the agent can read.
TRUST_FIELDS = frozenset(
    {
        "approval_key",
        "approval_provider",
        "approval_required_tools",
        "base_url",
        "bash_env",
        "bash_network",
        "bash_sandbox",
        "enabled_tools",
        "live_hosts",
        "mcp_servers",
        "otel",
        "proxy_contain",
        "sensitive_paths",
        "state_dir",
        "tool_allowlist",
        "tool_denylist",
        "workdir",
    }
)


def variable_of(field: str) -> str:
    """The variable that sets ``Settings.<field>``."""
    return f"{PREFIX}{field.upper()}"


def environment(environ: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """``environ`` as given, else the process environment over ``./.env``'s variables.

    A given mapping stands for the whole environment (tests, subprocess setups), so
    ``./.env`` is read only for the real one.
    """
    if environ is not None:
        return environ
    if not DOTENV.is_file():
        return os.environ
    from dotenv import dotenv_values

    try:
        read = dotenv_values(DOTENV, encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(
            f"{DOTENV.resolve()} cannot be read ({exc.__class__.__name__}); harness reads "
            "HARNESS_* settings from it: fix it, or move it away"
        ) from None
    from_file = {name: value for name, value in read.items() if value is not None}
    trusted = sorted(variable_of(field) for field in TRUST_FIELDS)
    taken = [name for name in trusted if from_file.get(name, "").strip()]
    if taken:
        raise ConfigurationError(
            f"{DOTENV.resolve()} sets {', '.join(taken)}: what a run may do (approval, the "
            "sandbox, tools, MCP servers, where state and traces go) is read from the "
            "environment only, never from a .env that came with the repository; export "
            "it in your shell or CI, or remove it from .env"
        )
    return {**from_file, **os.environ}


def env_value(field: str, environ: Mapping[str, str] | None = None) -> str | None:
    """The stripped text that sets ``Settings.<field>``, or None when unset or blank.

    For the modules that read one setting where they use it; the field must exist
    (tests/core/test_environ_reads.py checks every call names one).
    """
    value = environment(environ).get(variable_of(field), "").strip()
    return value or None
