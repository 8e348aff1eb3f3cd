"""Inside the network namespace: the child's one way out, to the harness proxy.

bwrap runs this file by path, ``python -I -S _bridge_in.py FOLDER PORT -- ARGV...``,
so nothing of harness is imported on the way (stdlib only: ~30 ms instead of the
package's import). It

1. listens on ``127.0.0.1:PORT`` (and ``[::1]:PORT`` where the namespace has
   IPv6), the proxy's address as the child knows it, and on an ephemeral
   loopback port, the *trap*, that the child's proxy variables name;
2. says hello on ``FOLDER/control`` and waits for the host's answer: the
   host has then taken hold of this namespace (to tear it down at the end);
3. double-forks the *forwarder*, which carries each connection to ``PORT`` over
   its own new connection to ``FOLDER/proxy`` (the host relays that to the
   proxy), byte for byte as they arrive; and answers each request to the trap
   with ``403``, telling the host the host:port it named;
4. execs ``ARGV`` with its environment plus the proxy variables, so the child is
   bwrap's own child: its exit status and the signals it gets are its own.

The forwarder is reparented to the namespace's init and never exits by itself:
when the child exits, bwrap exits, its init is killed (``--die-with-parent``)
and the kernel kills the forwarder with everything else in the namespace.

The listening sockets are bound before the fork, so a connection the child
makes at once waits in the backlog; none is refused for being early.
"""

from __future__ import annotations

# Only what the command's start needs is imported here (measured: typing, json
# and urllib.parse, which bring re, added ~40 ms to each start on a busy 2-core
# machine); the forwarder imports json and urllib.parse after the fork.
import contextlib
import os
import signal
import socket
import sys
import threading

TYPE_CHECKING = False  # typing's own constant, without importing typing (mypy knows it)
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "CONTROL_SOCKET",
    "PROXY_SOCKET",
    "PROXY_VARIABLES",
    "origin_form",
    "splice",
    "splice_both",
    "trap_target",
]

# The two sockets in the relay's folder (short: a socket's whole path must fit in 107 bytes).
PROXY_SOCKET = "proxy"
CONTROL_SOCKET = "control"

_CHUNK = 65536
_HEAD_LIMIT = 8192
_TRAP_READ_SECONDS = 10.0
_HELLO_SECONDS = 10.0
_WRAPPER_FAILED = 125  # like env(1) and bwrap: the wrapper, not the command, failed
_NOT_FOUND = 127
_CANNOT_RUN = 126

# Every spelling HTTP clients read (curl, Python, Node, Go, Rust's reqwest).
PROXY_VARIABLES: tuple[str, ...] = (
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
)  # fmt: skip
_NO_PROXY = "127.0.0.1,localhost,::1"

if TYPE_CHECKING:
    Report = Callable[[dict[str, object]], None]
    Handle = Callable[[socket.socket], None]


def splice(source: socket.socket, sink: socket.socket) -> None:
    """Copy bytes from ``source`` to ``sink`` as they arrive, until end of stream.

    Each ``recv`` is sent on at once (no buffering, so a streamed answer arrives
    in the pieces it was sent in). End of stream half-closes ``sink``; an error on
    either side shuts both down, so the other direction's ``recv`` returns too.
    """
    try:
        while data := source.recv(_CHUNK):
            sink.sendall(data)
    except OSError:
        for side in (source, sink):
            with contextlib.suppress(OSError):
                side.shutdown(socket.SHUT_RDWR)
        return
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)


def splice_both(one: socket.socket, other: socket.socket) -> None:
    """Carry both directions between two connected sockets, then close both."""
    back = threading.Thread(target=splice, args=(other, one), daemon=True)
    back.start()
    try:
        splice(one, other)
        back.join()
    finally:
        one.close()
        other.close()


def trap_target(head: bytes) -> tuple[str, int, str] | None:
    """``(host, port, method)`` named by a proxy request's first line, else None.

    ``CONNECT api.openai.com:443 HTTP/1.1`` or an absolute-form
    ``POST http://host/path HTTP/1.1``. Only host, port and method come out: the
    rest of the line (a query string can hold a key) is never kept.
    """
    from urllib.parse import urlsplit

    line = head.split(b"\n", 1)[0].rstrip(b"\r")
    parts = line.split(b" ")
    if len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
        return None
    method = parts[0].decode("ascii", "replace")
    target = parts[1].decode("latin-1")
    try:
        if method == "CONNECT":
            split = urlsplit(f"//{target}")
            default = 443
        elif "://" in target:
            split = urlsplit(target)
            default = 443 if split.scheme in ("https", "wss") else 80
        else:
            return None
        host, port = split.hostname, split.port
    except ValueError:
        return None
    if not host:
        return None
    return host, port if port is not None else default, method


def _listen(family: socket.AddressFamily, address: tuple[str, int]) -> socket.socket:
    server = socket.socket(family, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if family == socket.AF_INET6:
        server.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    server.bind(address)
    server.listen(128)
    return server


def _listeners(port: int) -> tuple[list[socket.socket], socket.socket]:
    """The proxy's address (IPv4, and IPv6 where the namespace has it) and the trap."""
    proxy = [_listen(socket.AF_INET, ("127.0.0.1", port))]
    if socket.has_ipv6:
        with contextlib.suppress(OSError):  # no IPv6 in this kernel or namespace
            proxy.append(_listen(socket.AF_INET6, ("::1", port)))
    return proxy, _listen(socket.AF_INET, ("127.0.0.1", 0))


def _hello(folder: str) -> socket.socket:
    """Connect to the host's control socket and wait until it has taken hold of us."""
    control = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    control.settimeout(_HELLO_SECONDS)
    control.connect(os.path.join(folder, CONTROL_SOCKET))
    control.sendall(b'{"hello": 1}\n')
    if not control.recv(1):
        raise ConnectionError("the host closed the control socket before answering")
    control.settimeout(None)
    return control


def _accept_forever(server: socket.socket, handle: Callable[[socket.socket], None]) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except ConnectionAbortedError:
            continue  # the child gave up on one connection
        except OSError:  # out of descriptors, say: wait for some to close, never spin
            threading.Event().wait(0.05)
            continue
        threading.Thread(target=handle, args=(conn,), daemon=True).start()


def _forward(folder: str) -> Callable[[socket.socket, bytes], None]:
    path = os.path.join(folder, PROXY_SOCKET)

    def handle(conn: socket.socket, prefix: bytes = b"") -> None:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(path)
            if prefix:
                upstream.sendall(prefix)
        except OSError:
            upstream.close()
            conn.close()  # the child sees the connection close: the relay is gone
            return
        splice_both(conn, upstream)

    return handle


def _read_until(conn: socket.socket, head: bytes, end: bytes) -> bytes:
    with contextlib.suppress(OSError):
        while end not in head and len(head) < _HEAD_LIMIT:
            chunk = conn.recv(4096)
            if not chunk:
                break
            head += chunk
    return head


def origin_form(head: bytes) -> bytes:
    """``head`` with its absolute-form request line made origin-form (``/path?query``)."""
    from urllib.parse import urlsplit

    line, newline, rest = head.partition(b"\n")
    method, target, version = line.split(b" ")
    split = urlsplit(target.decode("latin-1"))
    path = (split.path or "/") + (f"?{split.query}" if split.query else "")
    return b" ".join((method, path.encode("latin-1"), version)) + newline + rest


def _trap(port: int, report: Report, forward: Callable[[socket.socket, bytes], None]) -> Handle:
    """The proxy variables' target: a request naming the proxy itself goes on to it
    (a client that skips ``NO_PROXY`` for ``[::1]``, as Python's urllib does); any
    other is refused with 403 and reported."""
    proxy_names = ("127.0.0.1", "localhost", "::1")

    def handle(conn: socket.socket) -> None:
        conn.settimeout(_TRAP_READ_SECONDS)
        head = _read_until(conn, b"", b"\n")
        found = trap_target(head)
        if found is not None and found[0] in proxy_names and found[1] == port:
            conn.settimeout(None)
            if found[2] != "CONNECT":
                forward(conn, origin_form(head))
                return
            head = _read_until(conn, head, b"\r\n\r\n")
            with contextlib.suppress(OSError):
                conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            forward(conn, head.partition(b"\r\n\r\n")[2])
            return
        with conn:
            host, where, method = found if found else ("(unknown)", 0, "?")
            report({"blocked": host, "port": where, "method": method})
            body = (
                f"harness containment: this process can reach only the harness proxy at "
                f"127.0.0.1:{port}; the connection to {host}:{where} was refused\n"
            ).encode()
            with contextlib.suppress(OSError):
                conn.sendall(
                    b"HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain; charset=utf-8\r\n"
                    b"Connection: close\r\nContent-Length: " + str(len(body)).encode()
                    + b"\r\n\r\n" + body
                )  # fmt: skip

    return handle


def _reporter(control: socket.socket) -> Report:
    import json

    lock = threading.Lock()

    def report(event: dict[str, object]) -> None:
        line = json.dumps(event).encode() + b"\n"
        with lock, contextlib.suppress(OSError):
            control.sendall(line)

    return report


def _serve(
    folder: str,
    port: int,
    proxy: Sequence[socket.socket],
    trap: socket.socket,
    control: socket.socket,
) -> None:
    """The forwarder's body: one accepting thread per listening socket, for good."""
    forward = _forward(folder)
    threads = [threading.Thread(target=_accept_forever, args=(s, forward)) for s in proxy]
    catch = _trap(port, _reporter(control), forward)
    threads.append(threading.Thread(target=_accept_forever, args=(trap, catch)))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _start_forwarder(
    folder: str,
    port: int,
    proxy: Sequence[socket.socket],
    trap: socket.socket,
    control: socket.socket,
) -> None:
    """Double fork, so the forwarder is init's child and never the command's."""
    first = os.fork()
    if first == 0:
        try:
            os.setsid()  # out of the command's process group: its signals are its own
            if os.fork() == 0:
                _quiet_stdio()  # the child's output is the child's alone
                _close_others([s.fileno() for s in (*proxy, trap, control)])
                _serve(folder, port, proxy, trap, control)
        finally:
            os._exit(0)
    os.waitpid(first, 0)


def _quiet_stdio() -> None:
    """Point fds 0-2 at /dev/null (closing them would let a socket take fd 2, and
    a thread's traceback would then be written into a connection)."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    if null > 2:
        os.close(null)


def _close_others(keep: Sequence[int]) -> None:
    """Close every descriptor above 2 but ``keep``: the forwarder must not hold the
    command's pipes or passed descriptors open past the command's own exit."""
    low = 3
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 65536)


def _child_environment(trap_port: int) -> dict[str, str]:
    env = dict(os.environ)
    trap = f"http://127.0.0.1:{trap_port}"
    env.update(dict.fromkeys(PROXY_VARIABLES, trap))
    env["NO_PROXY"] = env["no_proxy"] = _NO_PROXY
    env["NODE_USE_ENV_PROXY"] = "1"  # Node's own fetch and http read the variables (22.21+)
    return env


def main(args: Sequence[str]) -> int:
    """``FOLDER PORT -- ARGV...``; returns only when the command could not be run."""
    if len(args) < 4 or args[2] != "--":
        print("usage: _bridge_in.py FOLDER PORT -- COMMAND...", file=sys.stderr)
        return _WRAPPER_FAILED
    folder, port, command = args[0], int(args[1]), list(args[3:])
    try:
        proxy, trap = _listeners(port)
        control = _hello(folder)
    except OSError as exc:
        print(f"harness containment: the bridge to the proxy failed: {exc}", file=sys.stderr)
        return _WRAPPER_FAILED
    env = _child_environment(trap.getsockname()[1])
    sys.stdout.flush()
    _start_forwarder(folder, port, proxy, trap, control)
    for sock in (*proxy, trap, control):
        sock.close()
    # Python ignores these at start-up and an ignored signal survives exec: give
    # the command the defaults it would have had on the host (as subprocess does).
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        os.execvpe(command[0], command, env)
    except FileNotFoundError:
        print(f"harness containment: {command[0]}: command not found", file=sys.stderr)
        return _NOT_FOUND
    except OSError as exc:
        print(f"harness containment: {command[0]}: {exc}", file=sys.stderr)
        return _CANNOT_RUN


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
