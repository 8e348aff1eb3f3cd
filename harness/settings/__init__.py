"""Settings: every knob of harness, from arguments, ``HARNESS_*`` variables and ``./.env``.

- ``_model``: ``Settings``, the pydantic-settings model (each field's
  ``description`` is its line in docs/reference/settings.md).
- ``_environ``: where values come from, and ``env_value`` for a module that reads
  one setting where it uses it, without importing the model.

``Settings`` loads on first use: pydantic-settings costs an import the pytest
plugin and ``harness --help`` need not pay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr
from harness.settings._environ import TRUST_FIELDS, env_value, environment, variable_of

if TYPE_CHECKING:
    from harness.settings._model import (
        BUILTIN_TOOL_NAMES,
        PROVIDER_NAMES,
        EnvironSettings,
        MappingSource,
        Settings,
        check_tool_names,
        explain,
    )

__all__ = [
    "BUILTIN_TOOL_NAMES",
    "PROVIDER_NAMES",
    "TRUST_FIELDS",
    "EnvironSettings",
    "MappingSource",
    "Settings",
    "check_tool_names",
    "env_value",
    "environment",
    "explain",
    "variable_of",
]

_LAZY = dict.fromkeys(
    (
        "BUILTIN_TOOL_NAMES",
        "PROVIDER_NAMES",
        "EnvironSettings",
        "MappingSource",
        "Settings",
        "check_tool_names",
        "explain",
    ),
    "_model",
)

__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
