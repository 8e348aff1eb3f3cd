"""Running the simulator in the foreground: what ``harness sim serve`` calls.

Start-up problems (no script, an invalid script, a bad or busy port) raise
:class:`ConfigurationError`, which the command prints as one ``error:`` line
with exit status 2, never a traceback. The command line itself is defined once,
in ``harness.cli._tools_cmd``; ``python -m harness.simulator`` runs that command.
"""

from __future__ import annotations

import os
import threading

from harness.core.errors import ConfigurationError
from harness.core.stderr_log import log_to_stderr
from harness.settings import env_value
from harness.simulator._server import SimulatorServer

__all__ = ["SCRIPT_VARIABLE", "check_host", "log_requests", "serve"]

SCRIPT_VARIABLE = "HARNESS_SCRIPT"


def _script_path(script_path: str | os.PathLike[str] | None) -> str | os.PathLike[str]:
    if script_path is not None and str(script_path):
        return script_path
    from_env = env_value("script")
    if from_env:
        return from_env
    raise ConfigurationError(
        f"no simulator script: pass --script FILE, or set {SCRIPT_VARIABLE} to a YAML/JSON "
        "script or turn list"
    )


def serve(
    script_path: str | os.PathLike[str] | None,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    stop: threading.Event | None = None,
    log_bodies: str | os.PathLike[str] | None = None,
) -> None:
    """Serve ``script_path`` (default: ``$HARNESS_SCRIPT``) until interrupted or ``stop``.

    Each request is logged at INFO on the ``harness.simulator`` logger; with
    ``log_bodies``, its body is appended to that file as a JSON line too.

    Raises:
        ConfigurationError: no script, a missing or invalid script, or a port that
            cannot be listened on (one line each).
    """
    server = SimulatorServer(
        _script_path(script_path), host=host, port=port, log_bodies=log_bodies
    ).start()
    print(f"harness simulator listening on {server.url}", flush=True)
    print(f"  OpenAI:    base_url={server.url}/v1", flush=True)
    print(f"  Anthropic: base_url={server.url}", flush=True)
    try:
        (stop or threading.Event()).wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def check_host(host: str, *, allow_remote: bool = False) -> str | None:
    """Refuse a ``host`` other machines can reach, unless ``allow_remote``; then warn.

    The simulator has no authentication: on 0.0.0.0 anyone on the network can
    drive it. Returns the warning to print for an allowed remote host, else None.

    Raises:
        ConfigurationError: ``host`` is not loopback and ``allow_remote`` is False.
    """
    from harness.providers.credentials import is_loopback_host

    if is_loopback_host(host):
        return None
    if not allow_remote:
        raise ConfigurationError(
            f"--host {host} is not a loopback address: the simulator (no authentication) "
            "would answer every machine that can reach this one; keep --host 127.0.0.1, "
            "or pass --allow-remote if that is what you want"
        )
    return (
        f"warning: the simulator listens on {host} with no authentication: every machine "
        "that can reach this one can use it"
    )


def log_requests() -> None:
    """Log each request (path, status, what answered) to stderr, as a foreground server does."""
    log_to_stderr("harness.simulator", "%(asctime)s %(name)s %(message)s")
