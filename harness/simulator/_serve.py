"""Running the simulator in the foreground (``harness sim serve``, ``python -m``)."""

from __future__ import annotations

import argparse
import os
import threading
from collections.abc import Sequence

from harness.core.errors import ConfigurationError
from harness.simulator._server import SimulatorServer

__all__ = ["main", "serve"]


def serve(
    script_path: str | os.PathLike[str],
    host: str = "127.0.0.1",
    port: int = 8765,
    *,
    stop: threading.Event | None = None,
) -> None:
    """Serve ``script_path`` until interrupted (Ctrl-C) or until ``stop`` is set.

    Raises:
        ConfigurationError: the script is missing or invalid.
    """
    server = SimulatorServer(script_path, host=host, port=port).start()
    print(f"harness simulator listening on {server.url}", flush=True)
    print(f"  OpenAI:    base_url={server.url}/v1", flush=True)
    print(f"  Anthropic: base_url={server.url}", flush=True)
    try:
        (stop or threading.Event()).wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m harness.simulator --script FILE --port N``."""
    parser = argparse.ArgumentParser(
        prog="python -m harness.simulator",
        description="Serve an OpenAI/Anthropic-compatible API from a scenario script.",
    )
    parser.add_argument("--script", required=True, help="YAML or JSON scenario script")
    parser.add_argument("--host", default="127.0.0.1", help="interface (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8765, help="TCP port (default 8765; 0 = any)")
    args = parser.parse_args(argv)
    try:
        serve(args.script, args.host, args.port)
    except ConfigurationError as exc:
        parser.exit(2, f"error: {exc}\n")
