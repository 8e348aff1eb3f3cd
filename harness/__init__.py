"""harness: an agent runtime and a pytest toolkit to test and evaluate agents offline.

The root re-exports the entry points most code needs; everything else lives in
the sub-packages (``harness.core``, ``harness.providers``, ``harness.tools``,
``harness.engine``, ``harness.tracing``, ``harness.testing``, ...). The names
load on first use so that ``harness --help`` and the pytest plugin start fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.core.lazy import lazy_getattr
from harness.version import __version__

if TYPE_CHECKING:
    from harness.app import Application, build_application
    from harness.engine import RunMode, RunResult, StopReason
    from harness.session import SessionRef
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
    "Application": "app",
    "build_application": "app",
    "RunMode": "engine",
    "RunResult": "engine",
    "StopReason": "engine",
    "SessionRef": "session",
    "Settings": "settings",
}

__getattr__ = lazy_getattr(__name__, _LAZY)


def __dir__() -> list[str]:
    return sorted(__all__)
