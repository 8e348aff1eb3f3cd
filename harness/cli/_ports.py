"""Checking a TCP port at the edge, before a server starts on it."""

from __future__ import annotations

import errno
import socket

from harness.core.errors import ConfigurationError

__all__ = ["busy_port_message", "check_port_free"]


def busy_port_message(host: str, port: int, exc: OSError) -> str:
    """What to tell the user when ``host:port`` cannot be bound."""
    if exc.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use; stop what holds it or choose another "
            "with --port"
        )
    if exc.errno == errno.EACCES:
        return f"no permission to listen on port {port} of {host}; choose a port above 1023"
    return f"cannot listen on {host}:{port} ({exc.strerror or exc}); check --host and --port"


def check_port_free(host: str, port: int) -> None:
    """Raise ``ConfigurationError`` when ``host:port`` cannot be bound right now.

    The server binds again afterwards, so a race is possible; this exists to
    turn the common case (something already listens) into one clear line.
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise ConfigurationError(f"--host {host!r} is not an address here ({exc})") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        # The same option uvicorn and http.server set, so TIME_WAIT is no false alarm.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ConfigurationError(busy_port_message(host, port, exc)) from None
