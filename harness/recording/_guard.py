"""A process-wide guard that refuses non-loopback sockets while replaying.

vcrpy intercepts the HTTP clients it knows. Anything it misses (another client,
a new SDK transport) would go live silently; under the guard it fails instead,
before a packet leaves: the address is checked first, then the real call runs.
Name lookups of non-local hosts are refused too, since they reach a DNS server.

The guard patches ``connect``, ``connect_ex``, ``sendto`` and ``sendmsg`` of
``socket.socket``; the C-level class ``_socket.socket`` is immutable, so while
the guard is on ``_socket.socket`` (and ``_socket.SocketType``) name a guarded
subclass, for code that builds sockets from ``_socket`` directly. It also
patches ``create_connection``, ``getaddrinfo``, ``gethostbyname``,
``gethostbyname_ex`` and ``gethostbyaddr`` in both ``socket`` and ``_socket``.
It is refcounted, so nested replays share one patch, and it
guards every thread while active.
"""

from __future__ import annotations

import _socket
import contextlib
import functools
import ipaddress
import socket
from collections.abc import Callable, Iterator
from typing import Any

from harness.core.urls import is_loopback_host
from harness.recording._errors import NetworkBlockedError, passthrough
from harness.recording._nesting import NestedPatch

__all__ = ["block_network", "is_loopback", "network_blocked"]

_saved: dict[str, Any] = {}
# The package's one "this machine?" predicate, under the name this module exports.
is_loopback = is_loopback_host


def network_blocked() -> bool:
    """Whether the guard is active now."""
    return _patch.active


def _refuse(what: str, host: object, port: object) -> None:
    raise passthrough(
        NetworkBlockedError(
            f"{what} to {host}:{port} refused: replaying a cassette (record mode 'none') "
            "must not touch the network, and this connection was not intercepted. "
            "Record the cassette (record mode 'once' or 'new_episodes'), or check that "
            "the client is one vcrpy patches (httpx/httpx2, requests, urllib3, aiohttp)."
        )
    )


def _check_address(what: str, address: object) -> None:
    if (
        _patch.depth
        and isinstance(address, tuple)
        and len(address) >= 2
        and not is_loopback(address[0])
    ):
        _refuse(what, address[0], address[1])


def _is_numeric(host: object) -> bool:
    # Looking up a literal address sends nothing; connecting to it is checked later.
    text = host.decode("ascii", errors="replace") if isinstance(host, bytes) else str(host)
    try:
        ipaddress.ip_address(text.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def _guard_method(name: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(self: Any, address: Any, *args: Any, **kwargs: Any) -> Any:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _check_address(f"socket.{name}", address)
        return original(self, address, *args, **kwargs)

    return guarded


def _guard_sendto(original: Callable[..., Any]) -> Callable[..., Any]:
    # sendto(data, address) or sendto(data, flags, address)
    def guarded(self: Any, data: Any, *args: Any) -> Any:
        if args and self.family in (socket.AF_INET, socket.AF_INET6):
            _check_address("socket.sendto", args[-1])
        return original(self, data, *args)

    return guarded


def _guard_sendmsg(original: Callable[..., Any]) -> Callable[..., Any]:
    # sendmsg(buffers[, ancdata[, flags[, address]]]): no address means connected.
    def guarded(self: Any, buffers: Any, *args: Any) -> Any:
        if len(args) >= 3 and self.family in (socket.AF_INET, socket.AF_INET6):
            _check_address("socket.sendmsg", args[2])
        return original(self, buffers, *args)

    return guarded


def _guard_create_connection(original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(address: Any, *args: Any, **kwargs: Any) -> Any:
        _check_address("create_connection", address)
        return original(address, *args, **kwargs)

    return guarded


def _local_name(host: Any) -> bool:
    local = host is None or is_loopback(host) or _is_numeric(host)
    return local or host == socket.gethostname()  # this machine's own name is local too


def _guard_lookup(what: str, original: Callable[..., Any]) -> Callable[..., Any]:
    def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
        if _patch.depth and not _local_name(host):
            _refuse(what, host, args[0] if args else "-")
        return original(host, *args, **kwargs)

    return guarded


_SOCKET_METHODS: dict[str, Callable[[str, Callable[..., Any]], Callable[..., Any]]] = {
    "connect": _guard_method,
    "connect_ex": _guard_method,
    "sendto": lambda name, original: _guard_sendto(original),
    "sendmsg": lambda name, original: _guard_sendmsg(original),
}
_LOOKUPS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr")
_MODULES = {"socket": socket, "_socket": _socket}
_C_SOCKET: type = _socket.socket


@functools.cache  # its methods read the guard's depth when called: one class serves every install
def _guarded_c_socket() -> type:
    methods = {name: wrap(name, getattr(_C_SOCKET, name)) for name, wrap in _SOCKET_METHODS.items()}
    return type("socket", (_C_SOCKET,), {"__module__": "_socket", "__slots__": (), **methods})


def _install() -> None:
    for name, wrap in _SOCKET_METHODS.items():
        _saved[f"socket.socket.{name}"] = socket.socket.__dict__.get(name)
        setattr(socket.socket, name, wrap(name, getattr(socket.socket, name)))
    guarded = _guarded_c_socket()
    for name in ("socket", "SocketType"):
        _saved[f"_socket.{name}"] = getattr(_socket, name)
        setattr(_socket, name, guarded)
    _saved["socket.create_connection"] = socket.create_connection
    socket.create_connection = _guard_create_connection(socket.create_connection)
    for label, module in _MODULES.items():
        for name in _LOOKUPS:
            original = getattr(module, name)
            _saved[f"{label}.{name}"] = original
            setattr(module, name, _guard_lookup(f"name lookup ({name})", original))


def _uninstall() -> None:
    for name in _SOCKET_METHODS:
        saved = _saved[f"socket.socket.{name}"]
        if saved is None:
            delattr(socket.socket, name)  # back to the inherited C method
        else:
            setattr(socket.socket, name, saved)
    for name in ("socket", "SocketType"):
        setattr(_socket, name, _saved[f"_socket.{name}"])
    socket.create_connection = _saved["socket.create_connection"]
    for label, module in _MODULES.items():
        for name in _LOOKUPS:
            setattr(module, name, _saved[f"{label}.{name}"])
    _saved.clear()


_patch = NestedPatch(_install, _uninstall)


@contextlib.contextmanager
def block_network() -> Iterator[None]:
    """Refuse non-loopback connections and lookups inside the block.

    Raises (inside the block):
        NetworkBlockedError: on a connection or lookup to a non-loopback host.
    """
    with _patch.held():
        yield
