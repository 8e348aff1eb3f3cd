"""Where a real provider's API key and base URL come from."""

from __future__ import annotations

import os

from harness.core.errors import ConfigurationError

__all__ = ["base_url_from_env", "require_api_key"]


def require_api_key(explicit: str | None, variable: str, provider: str) -> str:
    """``explicit``, else the environment ``variable``; missing is a ConfigurationError."""
    key = explicit or os.environ.get(variable)
    if not key:
        raise ConfigurationError(
            f"{variable} is not set: the {provider} provider needs an API key; export "
            f"{variable}, pass api_key=, or choose another provider (HARNESS_PROVIDER)"
        )
    return key


def base_url_from_env(explicit: str | None, variable: str) -> str | None:
    """``explicit``, else the environment ``variable``; None means the SDK default."""
    return explicit or os.environ.get(variable) or None
