"""A stdlib server serving on a thread for the length of a test, stopped promptly."""

from __future__ import annotations

import socketserver
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TypeVar

S = TypeVar("S", bound=socketserver.BaseServer)

# ``serve_forever`` looks for a ``shutdown()`` request once a poll interval; at the
# default 0.5 s every test that stopped a server waited about half a second for it
# (about 25 s of the suite, spread over ~50 tests).
POLL_INTERVAL = 0.01


@contextmanager
def serving(server: S) -> Iterator[S]:
    """Serve ``server`` on a daemon thread; shut it down and close it on exit."""
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": POLL_INTERVAL}, daemon=True
    )
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
