"""On the host: the relay from the namespace's Unix sockets to the proxy's port.

A private folder (mode 0700) holds two sockets, bound into the namespace:

* ``proxy``: each connection the forwarder inside makes (one per
  connection of the child) is relayed to a new TCP connection to
  ``127.0.0.1:<proxy_port>``, byte for byte as bytes arrive;
* ``control``: each contained process says hello there once, before its
  command starts. The relay reads the caller's pid from the socket
  (``SO_PEERCRED``), finds the namespace's init (its parent) and holds a pidfd
  to it, then answers; later the forwarder reports each connection its trap
  refused as a JSON line.

``close`` kills every namespace still alive (its init, so the kernel kills the
rest and nothing started inside outlives the relay), stops the relay's
threads and removes the folder.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import selectors
import shutil
import signal
import socket
import struct
import threading
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.proxy._bridge_in import CONTROL_SOCKET, PROXY_SOCKET, splice_both
from harness.tools.sandbox import open_pidfd, wait_for_exit

__all__ = ["BlockedConnection", "HostRelay"]

logger = logging.getLogger(__name__)

_NAMESPACE_EXIT_SECONDS = 5.0
_JOIN_SECONDS = 5.0
_LINE_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class BlockedConnection:
    """A connection the contained child tried to make past the proxy.

    Attributes:
        host: the host it named (``api.openai.com``), as its HTTP client sent it
            through the proxy variables.
        port: the port it named (443 for ``https://`` without one).
        method: ``CONNECT`` (HTTPS, WebSocket) or the HTTP method of a plain
            ``http://`` request.
    """

    host: str
    port: int
    method: str

    def message(self, why: str, proxy_port: int) -> str:
        """One line for the test's failure, e.g. with ``why="an eval test"``."""
        return (
            f"connection to {self.host}:{self.port} blocked ({why}): a process started "
            f"through llm_proxy can reach only the harness proxy at 127.0.0.1:{proxy_port}. "
            f"Point the client's base URL at llm_proxy.base_url(wire), or mark the test "
            f"live to let it reach {self.host}."
        )


class _Namespace:
    """One contained run: its control connection and pidfds of its init and of bwrap."""

    def __init__(self, control: socket.socket, init_fd: int | None, outer_fd: int | None) -> None:
        self.control: socket.socket | None = control
        self.init_fd = init_fd
        self.outer_fd = outer_fd
        self.pending = b""

    def outer_exited(self) -> bool:
        """Whether the bwrap that made the namespace has exited (the run is over)."""
        return self.outer_fd is not None and wait_for_exit(self.outer_fd, 0)

    def end(self) -> None:
        """Kill the namespace's init (the kernel then kills the rest) and wait for it."""
        init, self.init_fd = self.init_fd, None
        outer, self.outer_fd = self.outer_fd, None
        if outer is not None:
            os.close(outer)
        if init is None:
            return
        try:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                signal.pidfd_send_signal(init, signal.SIGKILL)
            if not wait_for_exit(init, _NAMESPACE_EXIT_SECONDS):
                logger.warning("harness containment: a namespace outlived its kill")
        finally:
            os.close(init)


class HostRelay:
    """The host end of the bridge; ``start`` before the command runs, ``close`` after."""

    def __init__(self, folder: Path, proxy_port: int) -> None:
        self.folder = folder
        self.proxy_port = proxy_port
        self.blocked: list[BlockedConnection] = []
        self._lock = threading.Lock()
        self._selector: selectors.BaseSelector | None = None
        self._wake_r = self._wake_w = -1
        self._loop: threading.Thread | None = None
        self._links: set[socket.socket] = set()
        self._link_threads: set[threading.Thread] = set()
        self._namespaces: list[_Namespace] = []
        self._closed = False

    @property
    def proxy_socket(self) -> Path:
        return self.folder / PROXY_SOCKET

    @property
    def control_socket(self) -> Path:
        return self.folder / CONTROL_SOCKET

    def start(self) -> None:
        """Make the folder and both sockets, and start the relay's thread."""
        if self._loop is not None or self._closed:
            raise ConfigurationError(
                "a contained command is entered once: make a new one with contained_command"
            )
        self.folder.mkdir(mode=0o700)
        try:
            listeners = [self._bind(self.proxy_socket), self._bind(self.control_socket)]
        except BaseException:
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = os.pipe()
        selector.register(self._wake_r, selectors.EVENT_READ, None)
        selector.register(listeners[0], selectors.EVENT_READ, self._accept_link)
        selector.register(listeners[1], selectors.EVENT_READ, self._accept_control)
        self._selector = selector
        self._loop = threading.Thread(target=self._run, name="harness-contain-relay", daemon=True)
        self._loop.start()

    def close(self) -> None:
        """Kill what is still running inside, stop relaying and remove the folder."""
        if self._closed:
            return
        self._closed = True
        if self._loop is not None:
            os.write(self._wake_w, b"x")
            self._loop.join(_JOIN_SECONDS)
        with self._lock:
            namespaces, self._namespaces = self._namespaces, []
            links, threads = list(self._links), list(self._link_threads)
        for namespace in namespaces:
            if namespace.control is not None:
                namespace.control.close()
            namespace.end()
        for link in links:
            with contextlib.suppress(OSError):
                link.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(_JOIN_SECONDS)
        if self._selector is not None:
            for key in list(self._selector.get_map().values()):
                if isinstance(key.fileobj, socket.socket):
                    key.fileobj.close()
            self._selector.close()
            os.close(self._wake_r)
            os.close(self._wake_w)
        shutil.rmtree(self.folder, ignore_errors=True)

    def settle(self) -> None:
        """Wait until the namespaces of finished runs are gone (killing what is left).

        bwrap exits as soon as the command does; the kernel tears the namespace
        down a moment later. After this, nothing a finished run started is running.
        """
        with self._lock:
            done = [ns for ns in self._namespaces if ns.outer_exited()]
            self._namespaces = [ns for ns in self._namespaces if ns not in done]
        for namespace in done:
            namespace.end()

    @staticmethod
    def _bind(path: Path) -> socket.socket:
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        server.bind(str(path))
        server.listen(128)
        server.setblocking(False)
        return server

    def _run(self) -> None:
        assert self._selector is not None
        while True:
            for key, _ in self._selector.select():
                if key.data is None:
                    return  # woken by close
                try:
                    key.data(key.fileobj)
                except Exception:  # one bad connection must not stop the relay
                    logger.exception("harness containment: the relay failed on one connection")

    def _accept_link(self, server: socket.socket) -> None:
        with contextlib.suppress(BlockingIOError):
            conn, _ = server.accept()
            conn.setblocking(True)
            thread = threading.Thread(
                target=self._link, args=(conn,), name="harness-contain-link", daemon=True
            )
            with self._lock:
                self._links.add(conn)
                self._link_threads.add(thread)
            thread.start()

    def _link(self, inside: socket.socket) -> None:
        """One of the child's connections: to the proxy, both ways, until either end stops."""
        try:
            upstream = socket.create_connection(("127.0.0.1", self.proxy_port))
        except OSError as exc:
            logger.warning("harness containment: proxy 127.0.0.1:%s: %s", self.proxy_port, exc)
            inside.close()
        else:
            upstream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._links.add(upstream)
            splice_both(inside, upstream)
            with self._lock:
                self._links.discard(upstream)
        with self._lock:
            self._links.discard(inside)
            self._link_threads.discard(threading.current_thread())

    def _accept_control(self, server: socket.socket) -> None:
        try:
            conn, _ = server.accept()
        except BlockingIOError:
            return
        namespace = _Namespace(conn, *_namespace_pids(conn))
        with self._lock:
            self._namespaces.append(namespace)
        assert self._selector is not None
        self._selector.register(conn, selectors.EVENT_READ, partial(self._read_control, namespace))
        with contextlib.suppress(OSError):
            conn.sendall(b"\n")  # the hello's answer: the command may start now

    def _read_control(self, namespace: _Namespace, conn: socket.socket) -> None:
        """One namespace's control connection: JSON lines, then end of stream."""
        try:
            data = conn.recv(_LINE_LIMIT)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._gone(namespace)
            return
        *lines, namespace.pending = (namespace.pending + data).split(b"\n")
        if len(namespace.pending) > _LINE_LIMIT:
            namespace.pending = b""  # no report is this long: drop it
        for line in lines:
            with contextlib.suppress(ValueError):
                self._report(json.loads(line))

    def _report(self, event: object) -> None:
        if not isinstance(event, dict) or "blocked" not in event:
            return
        host, port, method = event.get("blocked"), event.get("port"), event.get("method")
        if isinstance(host, str) and isinstance(port, int) and isinstance(method, str):
            with self._lock:
                self.blocked.append(BlockedConnection(host, port, method))

    def _gone(self, namespace: _Namespace) -> None:
        """The forwarder's end closed: the namespace is going (``settle`` waits for it)."""
        assert self._selector is not None and namespace.control is not None
        self._selector.unregister(namespace.control)
        namespace.control.close()
        namespace.control = None


def _namespace_pids(conn: socket.socket) -> tuple[int | None, int | None]:
    """Pidfds of the init of the peer's PID namespace and of its parent (bwrap).

    Only a peer in another PID namespace, whose parent is that namespace's pid 1,
    qualifies: a bridge started any other way never names a host process to kill.
    """
    raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid = struct.unpack("3i", raw)[0]
    try:
        if os.readlink(f"/proc/{pid}/ns/pid") == os.readlink("/proc/self/ns/pid"):
            return None, None
        init = _status_field(pid, "PPid")
        if init is None or _status_field(init, "NSpid", last=True) != 1:
            return None, None
        outer = _status_field(init, "PPid")
    except OSError:
        return None, None
    init_fd = open_pidfd(init)
    return init_fd, None if init_fd is None or outer is None else open_pidfd(outer)


def _status_field(pid: int, name: str, *, last: bool = False) -> int | None:
    with open(f"/proc/{pid}/status", encoding="utf-8") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key == name:
                fields = value.split()
                return int(fields[-1] if last else fields[0]) if fields else None
    return None
