"""harness: an agent runtime and a pytest toolkit to test and evaluate agents offline.

The root re-exports the entry points most code needs; everything else lives in
the sub-packages (``harness.core``, ``harness.providers``, ``harness.tools``,
``harness.engine``, ``harness.tracing``, ``harness.testing``, ...).
"""

from harness.app import Application, build_application
from harness.engine.run_types import RunMode, RunResult, StopReason
from harness.session.ref import SessionRef
from harness.settings import Settings

__version__ = "0.1.0"

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
