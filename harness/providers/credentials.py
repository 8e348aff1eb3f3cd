"""Where a real provider's API key and base URL come from."""

from __future__ import annotations

import os

from harness.core.errors import ConfigurationError

# One predicate for "this machine" in the whole package; re-exported for the callers here.
from harness.core.urls import base_url_problem, is_loopback_host, is_loopback_url

__all__ = [
    "LOOPBACK_PLACEHOLDER_KEY",
    "base_url_from_env",
    "is_loopback_host",
    "is_loopback_url",
    "loopback_placeholder_key",
    "require_api_key",
]


def require_api_key(
    explicit: str | None, variable: str, provider: str, *, base_url: str | None = None
) -> str:
    """``explicit``, else the environment ``variable``, else a placeholder for a server
    on this machine (``base_url`` on loopback); missing for any other host is a
    ConfigurationError."""
    key = explicit or os.environ.get(variable)
    if key:
        return key
    if is_loopback_url(base_url):
        return LOOPBACK_PLACEHOLDER_KEY
    where = f" for {base_url}" if base_url else ""
    raise ConfigurationError(
        f"{variable} is not set: the {provider} provider needs an API key{where}; export "
        f"{variable}, pass api_key=, or choose another provider (HARNESS_PROVIDER); "
        "a base_url on this machine (127.0.0.1, localhost) needs none"
    )


def base_url_from_env(explicit: str | None, variable: str) -> str | None:
    """``explicit``, else the environment ``variable``; None means the SDK default.

    A variable's URL without ``http://`` / ``https://`` is a ConfigurationError naming
    it and the fix (``explicit`` comes from Settings, which checked it already).
    """
    if explicit:
        return explicit
    value = os.environ.get(variable, "").strip()
    if not value:
        return None
    problem = base_url_problem(variable, value)
    if problem is not None:
        raise ConfigurationError(problem)
    return value


# Sent instead of a key to a server on this machine (the simulator): such a
# server needs no key, and a real one must not be demanded or sent to it.
LOOPBACK_PLACEHOLDER_KEY = "harness-loopback-placeholder"


def loopback_placeholder_key(variable: str, base_url: str | None) -> str | None:
    """A placeholder key when ``variable`` is unset and ``base_url`` is on this machine.

    A real key, when set, is always used (a local proxy may need it); a remote
    host never gets a placeholder, so a missing key still fails there.
    """
    if os.environ.get(variable) or not is_loopback_url(base_url):
        return None
    return LOOPBACK_PLACEHOLDER_KEY
