"""Old home of the simulator, which now lives in :mod:`harness.simulator`.

Kept so that code written against ``harness.recording.sim`` (and
``python -m harness.recording.sim``) keeps working; new code imports
``harness.simulator``. It re-exports exactly that package's public names.
"""

from harness import simulator as _simulator
from harness.simulator import *  # noqa: F403  (the alias is the whole public surface)

__all__ = list(_simulator.__all__)

if __name__ == "__main__":
    from harness.simulator._serve import main

    main()
