"""Running a proxy in the foreground: the ready line, the request log, a clean stop.

The first line on stdout is ``harness proxy listening on http://HOST:PORT``
(what a parent process waits for); each request is one line on stderr. Ctrl-C,
``SIGTERM`` or ``POST /__harness__/stop`` stop it: the cassette is saved and a
summary printed. A cassette that cannot be saved (a secret found in it) or
that left interactions unplayed when that is not allowed ends it with exit
status 1; bad start-up settings with one ``error:`` line and status 2.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType

from harness.core.errors import HarnessError
from harness.core.stderr_log import log_to_stderr
from harness.proxy._server import ProxyServer, Responder
from harness.proxy._spec import ProxySpec

__all__ = ["READY_PREFIX", "run_proxy"]

READY_PREFIX = "harness proxy listening on "


def run_proxy(spec: ProxySpec, responder: Responder | None = None) -> int:
    """Serve ``spec`` until stopped; returns the exit status (0 saved or nothing to save)."""
    log_to_stderr("harness.proxy", "%(asctime)s harness.proxy %(message)s", propagate=False)
    try:
        proxy = ProxyServer(spec, responder).start()
    except HarnessError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    print(f"{READY_PREFIX}{proxy.url}", flush=True)
    mode = "recording" if spec.upstreams and spec.record_mode != "none" else "replaying"
    print(f"  {mode} {spec.cassette} (record mode {spec.record_mode})", flush=True)

    def _stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=proxy.stop, daemon=True).start()

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
        signal.signal(signal.SIGINT, _stop)
    proxy.wait()
    state = proxy.final or proxy.state(closed=True)
    played, recorded = state["played"], state["recorded"]
    saved = "saved" if state.get("saved") else "unchanged"
    print(
        f"harness proxy stopped: {played} played, {recorded} recorded, "
        f"{len(state['errors'])} refused; cassette {saved}",
        file=sys.stderr,
        flush=True,
    )
    failure = state.get("failure")
    if failure:
        print(f"error: {failure}", file=sys.stderr, flush=True)
        return 1
    return 0
