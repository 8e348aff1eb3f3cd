"""Running the simulator in the foreground (``harness sim serve``, ``python -m``).

Start-up problems (no script, an invalid script, a bad or busy port) end the
command with one ``error:`` line and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
from collections.abc import Sequence

from harness.core.errors import ConfigurationError
from harness.simulator._server import SimulatorServer

__all__ = ["SCRIPT_VARIABLE", "check_host", "log_requests", "main", "serve", "serve_or_exit"]

SCRIPT_VARIABLE = "HARNESS_SCRIPT"


def _script_path(script_path: str | os.PathLike[str] | None) -> str | os.PathLike[str]:
    if script_path is not None and str(script_path):
        return script_path
    from_env = os.environ.get(SCRIPT_VARIABLE)
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
    logger = logging.getLogger("harness.simulator")
    if not logger.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


def serve_or_exit(
    script_path: str | os.PathLike[str] | None,
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    allow_remote: bool = False,
    log_bodies: str | os.PathLike[str] | None = None,
) -> None:
    """:func:`serve` for a command line: request log on stderr, errors as one line, exit 2.

    A host other than loopback is refused unless ``allow_remote`` (see :func:`check_host`).
    """
    log_requests()
    try:
        warning = check_host(host, allow_remote=allow_remote)
        if warning:
            print(warning, file=sys.stderr, flush=True)
        serve(script_path, host, port, log_bodies=log_bodies)
    except ConfigurationError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        raise SystemExit(2) from None


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m harness.simulator [--script FILE] [--port N]``."""
    parser = argparse.ArgumentParser(
        prog="python -m harness.simulator",
        description="Serve an OpenAI/Anthropic-compatible API from a scenario script.",
    )
    parser.add_argument(
        "--script", default=None, help=f"YAML or JSON scenario script (default: ${SCRIPT_VARIABLE})"
    )
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a --host other machines can reach (the simulator has no authentication)",
    )
    parser.add_argument("--port", type=int, default=8765, help="TCP port (default 8765; 0 = any)")
    parser.add_argument(
        "--log-bodies", default=None, help="append each request body to FILE as a JSON line"
    )
    args = parser.parse_args(argv)
    serve_or_exit(
        args.script,
        args.host,
        args.port,
        allow_remote=args.allow_remote,
        log_bodies=args.log_bodies,
    )
