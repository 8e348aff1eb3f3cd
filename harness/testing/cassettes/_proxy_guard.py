"""The live-call guard's second half: requests that reach a model API through a proxy.

With ``HTTPS_PROXY``, ``HTTP_PROXY`` or ``ALL_PROXY`` set (any case), an HTTP
client never looks the model API's name up: it connects to the proxy and names
the API inside the connection. The name-lookup guard
(:mod:`harness.testing.cassettes.live_guard`) never sees it, so this module looks where
the target host is still written, whatever proxy is configured (by variable or
by argument):

- the first line a client sends to an HTTP proxy: ``CONNECT api.openai.com:443``
  or an absolute-form ``POST http://api.openai.com/v1/... HTTP/1.1`` (checked in
  ``socket.send``/``sendall``, before the line leaves);
- the TLS server name (SNI) of every handshake (``SSLContext.wrap_socket`` and
  ``wrap_bio``, which asyncio and anyio use): behind any proxy, SOCKS included,
  no HTTPS request reaches a model API without naming it there, and it is
  checked before the first TLS byte, so no key is ever sent.

The patches are installed for the guarded block only and removed after it.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

__all__ = ["guard_proxied_calls", "proxied_target"]

_HEAD = 4096  # a request line longer than this names no host we look for
_lock = threading.Lock()


def proxied_target(data: bytes | bytearray | memoryview) -> str | None:
    """The host a proxy request names in its first line (CONNECT or absolute form)."""
    head = bytes(data[:_HEAD])
    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        return None
    method, target = parts[0], parts[1].decode("latin-1")
    try:
        if "://" in target:
            return urlsplit(target).hostname
        if method == b"CONNECT":
            return urlsplit(f"//{target}").hostname
    except ValueError:
        return None
    return None


def _server_name(args: tuple[Any, ...], kwargs: dict[str, Any], position: int) -> Any:
    if "server_hostname" in kwargs:
        return kwargs["server_hostname"]
    return args[position] if len(args) > position else None


@contextlib.contextmanager
def guard_proxied_calls(check: Callable[[str], None]) -> Iterator[None]:
    """Call ``check(host)`` with each host a proxy request or a TLS handshake names.

    ``check`` raises to refuse the connection before anything is sent to it.
    """
    sock_send, sock_sendall = socket.socket.send, socket.socket.sendall
    wrap_socket, wrap_bio = ssl.SSLContext.wrap_socket, ssl.SSLContext.wrap_bio

    def _checked(data: Any) -> None:
        if data[:1] in (b"C", b"G", b"P", b"D", b"H", b"O"):  # CONNECT, GET, POST, ...
            host = proxied_target(data)
            if host:
                check(host)

    def send(self: socket.socket, data: Any, *args: Any) -> int:
        _checked(data)
        return sock_send(self, data, *args)

    def sendall(self: socket.socket, data: Any, *args: Any) -> None:
        _checked(data)
        sock_sendall(self, data, *args)

    def guarded_wrap_socket(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        name = _server_name(args, kwargs, 4)
        if isinstance(name, str):
            check(name)
        return wrap_socket(self, *args, **kwargs)

    def guarded_wrap_bio(self: ssl.SSLContext, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        name = _server_name(args, kwargs, 3)
        if isinstance(name, str):
            check(name)
        return wrap_bio(self, *args, **kwargs)

    patches: list[tuple[Any, str, Any, Any]] = [
        (socket.socket, "send", sock_send, send),
        (socket.socket, "sendall", sock_sendall, sendall),
        (ssl.SSLContext, "wrap_socket", wrap_socket, guarded_wrap_socket),
        (ssl.SSLContext, "wrap_bio", wrap_bio, guarded_wrap_bio),
    ]
    with _lock:
        for owner, name, _, patched in patches:
            setattr(owner, name, patched)
    try:
        yield
    finally:
        with _lock:
            for owner, name, original, patched in patches:
                if getattr(owner, name) is patched:
                    setattr(owner, name, original)
