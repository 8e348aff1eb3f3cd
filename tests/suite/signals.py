"""Start a child with Ctrl-C working, whatever this test process inherited.

A shell that starts a job in the background (``cmd &`` with no job control, as a
CI script or a detached rehearsal may) sets SIGINT to "ignore" for everything it
starts, and an ignored signal stays ignored across exec: Python then installs no
KeyboardInterrupt handler, and a SIGINT the test sends reaches nobody. A
terminal's foreground job has the default; prefix a command with ``DEFAULT_SIGINT``
(in place of ``sys.executable``) to start it that way.
"""

from __future__ import annotations

import sys

DEFAULT_SIGINT = [
    sys.executable,
    "-c",
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[1:]])",
]
