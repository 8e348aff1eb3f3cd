"""harness: an agent runtime and a pytest toolkit to test and evaluate agents offline.

The root re-exports the entry points most code needs; everything else lives in
the sub-packages (``harness.core``, ``harness.providers``, ``harness.tools``,
``harness.engine``, ``harness.tracing``, ``harness.testing``, ...). The names
load on first use so that ``harness --help`` and the pytest plugin start fast.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from harness.version import __version__

if TYPE_CHECKING:
    from harness.app import Application, build_application
    from harness.engine.run_types import RunMode, RunResult, StopReason
    from harness.session.ref import SessionRef
    from harness.settings import Settings

__all__ = [
    "Application",
    "RunMode",
    "RunResult",
    "SessionRef",
    "Settings",
    "StopReason",
    "__version__",
    "build_application",
]

_LAZY = {
    "Application": "harness.app",
    "build_application": "harness.app",
    "RunMode": "harness.engine.run_types",
    "RunResult": "harness.engine.run_types",
    "StopReason": "harness.engine.run_types",
    "SessionRef": "harness.session.ref",
    "Settings": "harness.settings",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'harness' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
