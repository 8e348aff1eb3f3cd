"""The replay guard refuses non-loopback sockets before any packet leaves."""

from __future__ import annotations

import _socket
import socket
import threading
from collections.abc import Callable
from typing import Any

import pytest

from harness.recording import NetworkBlockedError, block_network
from harness.recording._guard import is_loopback, network_blocked

BLACKHOLE = ("10.255.255.1", 9)  # never contacted: the guard checks before connecting


def _connect(family: socket.AddressFamily, address: tuple[str, int], method: str) -> None:
    with socket.socket(family) as sock:
        getattr(sock, method)(address)


@pytest.mark.parametrize(
    "attempt",
    [
        pytest.param(
            lambda: socket.create_connection(BLACKHOLE, timeout=0.1), id="create_connection"
        ),
        pytest.param(lambda: _connect(socket.AF_INET, BLACKHOLE, "connect"), id="connect"),
        pytest.param(lambda: _connect(socket.AF_INET, BLACKHOLE, "connect_ex"), id="connect_ex"),
        pytest.param(lambda: socket.getaddrinfo("api.openai.com", 443), id="name-lookup"),
        pytest.param(lambda: _connect(socket.AF_INET6, ("2001:db8::1", 9), "connect"), id="ipv6"),
    ],
)
def test_non_loopback_is_refused(attempt: Callable[[], object]) -> None:
    with (
        block_network(),
        pytest.raises(NetworkBlockedError, match=r"10\.255\.255\.1|api\.openai\.com|2001:db8"),
    ):
        attempt()


def test_refusal_happens_before_the_real_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []
    # Patched before the guard, so the guard wraps this fake in place of the real connect.
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: calls.append(address))
    with block_network(), pytest.raises(NetworkBlockedError):
        _connect(socket.AF_INET, BLACKHOLE, "connect")
    assert calls == []


def test_loopback_is_allowed() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    with server, block_network():
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            pass
        with socket.create_connection(("localhost", port), timeout=1):
            pass
        assert socket.getaddrinfo("localhost", port)


def test_nesting_and_threads_share_one_refcounted_patch() -> None:
    original = socket.create_connection
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            socket.create_connection(BLACKHOLE, timeout=0.1)
        except BaseException as exc:  # collected and checked below
            errors.append(exc)

    with block_network():
        with block_network():
            assert network_blocked()
        assert network_blocked()
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
    assert not network_blocked()
    assert socket.create_connection is original
    assert "connect" not in socket.socket.__dict__
    assert len(errors) == 1 and isinstance(errors[0], NetworkBlockedError)


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("::1", True),
        ("[::1]", True),
        ("localhost", True),
        ("::ffff:127.0.0.1", True),
        ("10.0.0.1", False),
        ("api.anthropic.com", False),
        ("0.0.0.0", False),
    ],
)
def test_is_loopback(host: str, expected: bool) -> None:
    assert is_loopback(host) is expected


def _on(factory: Callable[[], Any], method: str, *args: object) -> Callable[[], object]:
    """Call ``method`` on a fresh socket from ``factory``, closing it whatever happens."""

    def attempt() -> object:
        sock = factory()
        try:
            return getattr(sock, method)(*args)
        finally:
            sock.close()

    return attempt


def _raw(kind: int = socket.SOCK_STREAM) -> Callable[[], Any]:
    return lambda: _socket.socket(socket.AF_INET, kind)


def _udp() -> Any:
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)


@pytest.mark.parametrize(
    "attempt",
    [
        pytest.param(_on(_raw(), "connect", BLACKHOLE), id="_socket-connect"),
        pytest.param(_on(_raw(), "connect_ex", BLACKHOLE), id="_socket-connect_ex"),
        pytest.param(
            _on(_raw(socket.SOCK_DGRAM), "sendto", b"x", BLACKHOLE), id="_socket-udp-sendto"
        ),
        pytest.param(_on(_udp, "sendto", b"x", BLACKHOLE), id="udp-sendto"),
        pytest.param(_on(_udp, "sendto", b"x", 0, BLACKHOLE), id="udp-sendto-flags"),
        pytest.param(_on(_udp, "sendmsg", [b"x"], [], 0, BLACKHOLE), id="udp-sendmsg"),
        pytest.param(lambda: socket.gethostbyname("api.openai.com"), id="gethostbyname"),
        pytest.param(lambda: socket.gethostbyname_ex("api.openai.com"), id="gethostbyname_ex"),
        pytest.param(lambda: _socket.gethostbyname("api.openai.com"), id="_socket-gethostbyname"),
        pytest.param(lambda: _socket.getaddrinfo("api.openai.com", 443), id="_socket-getaddrinfo"),
    ],
)
def test_lower_level_paths_are_refused_too(attempt: Callable[[], object]) -> None:
    with block_network(), pytest.raises(NetworkBlockedError, match=r"10\.255\.255\.1|api\.openai"):
        attempt()


def test_loopback_udp_and_lookups_stay_allowed() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as receiver:
        receiver.bind(("127.0.0.1", 0))
        address = receiver.getsockname()
        with block_network():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
                sender.sendto(b"ping", address)
                sender.sendmsg([b"pong"], [], 0, address)
            raw = _socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            raw.sendto(b"raw", address)
            raw.close()
            assert socket.gethostbyname("localhost").startswith("127.")
            assert _socket.gethostbyname_ex("127.0.0.1")[2] == ["127.0.0.1"]
        received = {receiver.recv(16) for _ in range(3)}
    assert received == {b"ping", b"pong", b"raw"}


def test_everything_is_restored_afterwards() -> None:
    before = (
        _socket.socket,
        _socket.SocketType,
        socket.gethostbyname,
        socket.gethostbyname_ex,
        socket.getaddrinfo,
        _socket.gethostbyname,
        _socket.getaddrinfo,
        dict(socket.socket.__dict__),
    )
    with block_network():
        assert _socket.socket is not before[0]
        assert socket.gethostbyname is not before[2]
    after = (
        _socket.socket,
        _socket.SocketType,
        socket.gethostbyname,
        socket.gethostbyname_ex,
        socket.getaddrinfo,
        _socket.gethostbyname,
        _socket.getaddrinfo,
        dict(socket.socket.__dict__),
    )
    assert after == before
