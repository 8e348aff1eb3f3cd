"""No unix socket, no keyring: a bash call cannot reach another process that would act for it.

(Also here: no vsock to the hypervisor's host, no ``prlimit`` on harness.)

A tmux server on any socket (``tmux -S /tmp/x``), a service listening on a
named or abstract socket, harness's own session keyring: each was reachable
from bash on at least one path before the seccomp filter. Here each is set up
for real by the test process (the host side) and tried from bash on both paths.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import platform
import resource
import secrets
import shutil
import socket
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.core.errors import ToolError
from harness.tools._protocol import ToolInput
from harness.tools.builtin._bash import BashTool
from harness.tools.sandbox import EnvironmentFilter, is_forbidden_name
from tests.tools.conftest import needs_landlock

pytestmark = pytest.mark.skipif(
    platform.machine() not in ("x86_64", "aarch64"), reason="the filter knows x86_64, aarch64"
)


def _run(tool: BashTool, command: str, workdir: Path) -> str:
    try:
        return tool.run(ToolInput({"command": command, "timeout_seconds": 30}, workdir)).text
    except ToolError as exc:
        return f"ToolError: {exc}"


def _connect_code(address: str) -> str:
    return (
        "import socket\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        f"s.connect({address!r})\n"
        "s.sendall(b'ping')\n"
        "print('CONNECTED', s.recv(16))\n"
    )


@contextlib.contextmanager
def _server(address: str) -> Iterator[list[bytes]]:
    """A unix stream server in this (host) process answering ``pong``; yields what it got."""
    got: list[bytes] = []
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(address)
    server.listen(4)
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(5)
                with contextlib.suppress(OSError):
                    got.append(conn.recv(16))
                    conn.sendall(b"pong")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield got
    finally:
        stop.set()
        thread.join()
        server.close()


def _python(script: Path, code: str) -> str:
    script.write_text(code)
    return f"python3 {script}"


@pytest.mark.parametrize("place", ["workdir", "tmp"])
def test_a_named_socket_listening_on_the_host_is_unreachable(
    make_bash: Callable[..., BashTool], mode: str, tmp_path: Path, place: str
) -> None:
    if mode == "bwrap" and place == "tmp":
        pytest.skip("the sandbox's /tmp is private: a host socket there was never visible")
    work = tmp_path / "work"
    work.mkdir()
    folder = work if place == "workdir" else tmp_path
    address = str(folder / "service.sock")
    with _server(address) as got:
        out = _run(make_bash(), _python(work / "client.py", _connect_code(address)), work)

    assert "CONNECTED" not in out and not got, out
    assert "Permission denied" in out, out


@pytest.mark.parametrize("network", [False, True], ids=["network off", "network on"])
def test_an_abstract_socket_on_the_host_is_unreachable(
    make_bash: Callable[..., BashTool], tmp_path: Path, network: bool
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    address = f"\0harness-test-{secrets.token_hex(6)}"
    with _server(address) as got:
        tool = make_bash(network=network)
        out = _run(tool, _python(work / "client.py", _connect_code(address)), work)

    assert "CONNECTED" not in out and not got, out


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("place", ["workdir", "tmp"])
def test_a_tmux_server_on_another_socket_cannot_run_a_command(
    make_bash: Callable[..., BashTool], mode: str, tmp_path: Path, place: str
) -> None:
    """The escape of the issue: ``tmux -S PATH run-shell`` runs outside every confinement."""
    if mode == "bwrap" and place == "tmp":
        pytest.skip("the sandbox's /tmp is private: a host socket there was never visible")
    work = tmp_path / "work"
    work.mkdir()
    sock = (work if place == "workdir" else tmp_path) / "x"
    escaped = tmp_path / "escaped"  # outside the workdir: only the host's tmux could write it
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "TERM": "xterm", "HOME": str(tmp_path)}
    tmux = ["tmux", "-S", str(sock), "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "sleep 120"], env=env, check=True)
    try:
        # Without an overlay (the workdir bound as it is): through one, tmux's client gives
        # up on its own ("no server running"), which would prove nothing here.
        tool = make_bash(overlay=False)
        out = _run(tool, f"tmux -S {sock} run-shell 'touch {escaped}'; echo done", work)
    finally:
        subprocess.run([*tmux, "kill-server"], env=env, check=False, capture_output=True)

    assert "done" in out, out
    assert not escaped.exists(), out


def test_only_a_stream_socketpair_is_left(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    """A pair of the call's own is fine; a datagram pair could still name any socket path."""
    work = tmp_path / "work"
    work.mkdir()
    code = (
        "import socket\n"
        "a, b = socket.socketpair()\n"
        "a.sendall(b'hi'); print('STREAM', b.recv(2))\n"
        "try:\n"
        "    socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)\n"
        "    print('DGRAM-MADE')\n"
        "except PermissionError:\n"
        "    print('DGRAM-REFUSED')\n"
    )
    out = _run(make_bash(), _python(work / "pair.py", code), work)

    assert "STREAM b'hi'" in out and "DGRAM-REFUSED" in out, out


_libc = ctypes.CDLL(None, use_errno=True)
_syscall = _libc.syscall
_syscall.restype = ctypes.c_long
_KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine(), (-1, -1))
_SESSION, _READ, _INVALIDATE = -3, 11, 21


@pytest.fixture
def session_key() -> Iterator[tuple[int, str]]:
    """A key holding a fresh secret in this process's session keyring: ``(id, secret)``."""
    add_key, keyctl = _KEYCTL
    secret = f"keyring-secret-{secrets.token_hex(8)}"
    payload = secret.encode()
    key = _syscall(
        add_key, b"user", f"harness-test-{secrets.token_hex(4)}".encode(), payload,
        len(payload), ctypes.c_long(_SESSION),
    )  # fmt: skip
    if key < 0:
        pytest.skip(f"no kernel keyrings here: {os.strerror(ctypes.get_errno())}")
    try:
        yield key, secret
    finally:
        _syscall(keyctl, _INVALIDATE, ctypes.c_long(key))


def test_bash_cannot_read_harness_s_session_keyring(
    make_bash: Callable[..., BashTool], tmp_path: Path, session_key: tuple[int, str]
) -> None:
    key, secret = session_key
    keyctl = _KEYCTL[1]
    work = tmp_path / "work"
    work.mkdir()
    code = (
        "import ctypes\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.restype = ctypes.c_long\n"
        "buf = ctypes.create_string_buffer(256)\n"
        f"n = libc.syscall({keyctl}, {_READ}, ctypes.c_long({key}), buf, 256)\n"
        "print('READ', n, buf.value, ctypes.get_errno())\n"
        f"s = libc.syscall({keyctl}, 0, ctypes.c_long({_SESSION}), 0)\n"
        "print('SESSION', s, ctypes.get_errno())\n"
    )
    out = _run(make_bash(), _python(work / "keys.py", code) + "; cat /proc/keys", work)

    assert secret not in out, out
    assert "READ -1" in out, out


@pytest.mark.parametrize(
    "name", ["SSH_AUTH_SOCK", "TMUX", "DBUS_SESSION_BUS_ADDRESS", "DOCKER_HOST", "MY_APP_SOCKET"]
)
def test_a_socket_address_is_never_passed_even_when_listed(name: str) -> None:
    env = EnvironmentFilter([name]).apply({name: "/tmp/somewhere.sock", "PATH": "/bin"})

    assert is_forbidden_name(name)
    assert name not in env


def test_a_vsock_to_the_hypervisor_host_cannot_be_made(
    make_bash: Callable[..., BashTool], tmp_path: Path
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    code = (
        "import socket\n"
        "try:\n"
        "    socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM)\n"
        "    print('VSOCK-MADE')\n"
        "except OSError as exc:\n"
        "    print('VSOCK-REFUSED', exc.errno)\n"
    )
    out = _run(make_bash(network=True), _python(work / "vsock.py", code), work)

    assert "VSOCK-REFUSED 13" in out, out  # EACCES: the filter, not a missing module


@needs_landlock
def test_bash_cannot_change_harness_s_resource_limits(tmp_path: Path) -> None:
    """Unsandboxed, harness is bash's parent: shrinking its limits would crash it later."""
    work, state = tmp_path / "work", tmp_path / "state"
    work.mkdir()
    kind = resource.RLIMIT_MSGQUEUE  # harmless to lower for a moment, should it work
    before = resource.getrlimit(kind)
    lowered = max(before[0] - 1, 0)
    code = (
        "import os, resource\n"
        f"resource.prlimit(os.getppid(), {kind}, ({lowered}, {before[1]}))\n"
        "print('CHANGED')\n"
    )
    tool = BashTool(sandbox="off", state_dir=state, key_dir=tmp_path / "keys")
    try:
        out = _run(tool, _python(work / "limit.py", code), work)
        after = resource.getrlimit(kind)
    finally:
        resource.setrlimit(kind, before)

    assert after == before and "CHANGED" not in out, out
