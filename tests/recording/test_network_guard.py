"""The replay guard refuses non-loopback sockets before any packet leaves."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable

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
