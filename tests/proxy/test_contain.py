"""Containment (issue 47 item 4): a child whose only way out is the proxy.

Real bwrap, real subprocesses, real loopback servers on the host. A machine
without a working bwrap skips the bridged tests with the refusal's reason; the
refusal itself is tested with a finder that finds nothing and with a bwrap that
cannot make namespaces, not by patching harness.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.core.errors import ConfigurationError
from harness.proxy._contain import ContainedCommand, Refusal, contained_command, unreachable_hosts

# A hang guard for the child's socket calls, never a timing assertion.
_GUARD_SECONDS = 30


@dataclass
class _Server:
    """A loopback HTTP server: the proxy, or a place the child must not reach."""

    port: int
    bodies: list[bytes] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


def _handler(server: _Server) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            server.bodies.append(body)
            if self.path == "/stream":
                self._stream()
                return
            if self.path == "/release":
                server.release.set()
            answer = b"got " + body
            self.send_response(200)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def _stream(self) -> None:
            # The second piece is written only after the child asked for it on
            # another connection, which it can do only once the first piece arrived.
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"7\r\npiece-1\r\n")
            self.wfile.flush()
            server.release.wait(_GUARD_SECONDS)
            self.wfile.write(b"7\r\npiece-2\r\n0\r\n\r\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            pass

    return Handler


MakeServer = Callable[[], _Server]


@pytest.fixture
def make_server() -> Iterator[MakeServer]:
    servers: list[ThreadingHTTPServer] = []

    def start() -> _Server:
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
        state = _Server(httpd.server_address[1])
        httpd.RequestHandlerClass = _handler(state)
        httpd.daemon_threads = True
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(httpd)
        return state

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()


def _contain(tmp_path: Path, port: int, script: str) -> ContainedCommand:
    found = contained_command(
        [sys.executable, "-c", textwrap.dedent(script)],
        proxy_port=port,
        cwd=tmp_path,
        relay_dir=tmp_path,
    )
    if isinstance(found, Refusal):
        pytest.skip(found.reason)
    return found


def _run(contained: ContainedCommand) -> tuple[int, str, str]:
    with contained:
        done = contained.run(capture_output=True, text=True, timeout=_GUARD_SECONDS)
    return done.returncode, done.stdout, done.stderr


def _processes_naming(token: str) -> list[int]:
    """Host pids whose command line holds ``token``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if token.encode() in cmdline.read():
                    found.append(int(entry))
        except OSError:
            continue  # gone while we looked
    return found


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _free_port() -> int:
    """A loopback port nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- the cheap default tier ------------------------------------------------------------


def test_without_bwrap_containment_is_off_in_one_line(tmp_path: Path) -> None:
    refusal = contained_command(["true"], proxy_port=8080, cwd=tmp_path, finder=lambda: None)
    assert isinstance(refusal, Refusal)
    assert refusal.reason.startswith("containment is off: no bwrap found")
    assert "\n" not in refusal.reason
    assert str(refusal) == refusal.reason


def test_a_bwrap_that_cannot_make_namespaces_is_a_refusal(tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\necho 'bwrap: No permissions to create a new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    refusal = contained_command(["true"], proxy_port=8080, cwd=tmp_path, finder=lambda: fake)
    assert isinstance(refusal, Refusal)
    assert refusal.reason == (
        f"containment is off: {fake} does not work here: "
        "bwrap: No permissions to create a new namespace"
    )


@pytest.mark.parametrize(
    ("argv", "port", "cwd", "says"),
    [
        pytest.param([], 8080, None, "argv is empty", id="no-command"),
        pytest.param(["true"], 0, None, "not 0", id="port-zero"),
        pytest.param(["true"], 70000, None, "not 70000", id="port-too-big"),
        pytest.param(["true"], 8080, "missing", "is not a folder", id="no-such-cwd"),
    ],
)
def test_bad_input_is_a_configuration_error(
    tmp_path: Path, argv: list[str], port: int, cwd: str | None, says: str
) -> None:
    with pytest.raises(ConfigurationError, match=says):
        contained_command(argv, proxy_port=port, cwd=None if cwd is None else tmp_path / cwd)


def test_a_child_posts_to_the_proxy_through_the_bridge(
    tmp_path: Path, make_server: MakeServer
) -> None:
    proxy = make_server()
    code, out, err = _run(
        _contain(
            tmp_path,
            proxy.port,
            f"""
            import urllib.request
            request = urllib.request.Request("http://127.0.0.1:{proxy.port}/v1/x", data=b"hello")
            print(urllib.request.urlopen(request, timeout={_GUARD_SECONDS}).read().decode())
            """,
        )
    )
    assert (code, out, err) == (0, "got hello\n", "")
    assert proxy.bodies == [b"hello"]


# -- the deep tier: one bwrap start each --------------------------------------------------


@pytest.mark.deep
def test_a_streamed_answer_arrives_in_pieces(tmp_path: Path, make_server: MakeServer) -> None:
    proxy = make_server()
    code, out, err = _run(
        _contain(
            tmp_path,
            proxy.port,
            f"""
            import socket
            HEAD = "HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 2\\r\\n\\r\\nhi"
            def post(path):
                conn = socket.create_connection(("127.0.0.1", {proxy.port}), {_GUARD_SECONDS})
                conn.sendall(f"POST {{path}} {{HEAD}}".encode())
                return conn
            stream = post("/stream")
            seen = b""
            while b"piece-1" not in seen:
                seen += stream.recv(4096)
            print("first piece before the rest:", b"piece-2" not in seen)
            post("/release").recv(4096)
            while not seen.endswith(b"0\\r\\n\\r\\n"):
                seen += stream.recv(4096)
            print("then the rest:", b"piece-2" in seen)
            """,
        )
    )
    assert (code, err) == (0, "")
    assert out == "first piece before the rest: True\nthen the rest: True\n"


@pytest.mark.deep
def test_other_loopback_ports_and_names_are_unreachable(
    tmp_path: Path, make_server: MakeServer
) -> None:
    proxy, elsewhere = make_server(), make_server()
    code, out, err = _run(
        _contain(
            tmp_path,
            proxy.port,
            f"""
            import socket
            try:
                socket.create_connection(("127.0.0.1", {elsewhere.port}), timeout={_GUARD_SECONDS})
            except OSError as exc:
                print("direct:", type(exc).__name__)
            try:
                socket.getaddrinfo("api.openai.com", 443)
            except OSError as exc:
                print("lookup:", type(exc).__name__)
            """,
        )
    )
    assert (code, err) == (0, "")
    assert out == "direct: ConnectionRefusedError\nlookup: gaierror\n"
    assert elsewhere.bodies == []


@pytest.mark.deep
def test_a_request_through_the_proxy_variables_names_its_host(
    tmp_path: Path, make_server: MakeServer
) -> None:
    proxy = make_server()
    contained = _contain(
        tmp_path,
        proxy.port,
        f"""
        import urllib.error, urllib.request
        for url in ("https://api.openai.com/v1/responses", "http://example.com:8080/v1?key=sk-1"):
            try:
                urllib.request.urlopen(url, timeout={_GUARD_SECONDS})
            except urllib.error.URLError as exc:
                print("refused:", exc.reason)
        """,
    )
    code, out, _ = _run(contained)
    assert code == 0
    assert out.splitlines()[0] == "refused: Tunnel connection failed: 403 Forbidden"
    assert [(b.host, b.port, b.method) for b in contained.blocked] == [
        ("api.openai.com", 443, "CONNECT"),
        ("example.com", 8080, "GET"),
    ]
    message = contained.blocked[0].message("an eval test", proxy.port)
    assert message.startswith("connection to api.openai.com:443 blocked (an eval test): ")
    assert f"127.0.0.1:{proxy.port}" in message
    assert "sk-1" not in repr(contained.blocked)


@pytest.mark.deep
def test_nothing_a_finished_child_started_outlives_it(
    tmp_path: Path, make_server: MakeServer
) -> None:
    token = f"outlive-{os.urandom(6).hex()}"
    contained = _contain(
        tmp_path,
        make_server().port,
        f"""
        import subprocess
        subprocess.Popen(["sh", "-c", "sleep 600", "{token}"], start_new_session=True)
        """,
    )
    folder = str(contained.relay.folder)
    with contained:
        assert contained.run(timeout=_GUARD_SECONDS).returncode == 0
        # the daemon the child left, and the forwarder (its argv names the folder)
        assert _processes_naming(token) == []
        assert _processes_naming(folder) == []
    assert not Path(folder).exists()
    assert not [t for t in threading.enumerate() if t.name.startswith("harness-contain")]


@pytest.mark.deep
def test_leaving_the_block_ends_a_child_still_running(
    tmp_path: Path, make_server: MakeServer
) -> None:
    token = f"still-{os.urandom(6).hex()}"
    contained = _contain(tmp_path, make_server().port, f"import time; time.sleep(600)  # {token}")
    with contained:
        process = subprocess.Popen(
            contained.argv, env=contained.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        # the child has started once its own command line shows (past the bridge's exec)
        started = f"{sys.executable}\0-c\0".encode()
        while not any(_cmdline(pid).startswith(started) for pid in _processes_naming(token)):
            assert process.poll() is None, process.communicate()
            time.sleep(0.01)
    assert process.wait(_GUARD_SECONDS) != 0
    process.communicate()
    assert _processes_naming(token) == []


@pytest.mark.deep
def test_the_child_keeps_its_exit_status_env_and_working_folder(
    tmp_path: Path, make_server: MakeServer
) -> None:
    home = tmp_path / "home"
    work = tmp_path / "work"
    home.mkdir()
    work.mkdir()
    contained = contained_command(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import os, pathlib, sys
                pathlib.Path("made-inside").write_text("x")
                pathlib.Path(os.environ["HOME"], "config").write_text("y")
                try:
                    pathlib.Path("/usr/harness-contain-probe").write_text("z")
                except OSError as exc:
                    print("root:", exc.strerror)
                print("marker:", os.environ["CONTAIN_MARKER"], "cwd:", os.getcwd())
                sys.exit(3)
                """
            ),
        ],
        proxy_port=make_server().port,
        env={**os.environ, "CONTAIN_MARKER": "seen", "HOME": str(home)},
        cwd=work,
        writable=[home],
        relay_dir=tmp_path,
    )
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    code, out, err = _run(contained)
    assert (code, err) == (3, "")
    assert out == f"root: Read-only file system\nmarker: seen cwd: {work}\n"
    assert (work / "made-inside").read_text() == "x"
    assert (home / "config").read_text() == "y"


@pytest.mark.deep
def test_a_missing_command_and_a_stopped_proxy_fail_fast(
    tmp_path: Path, make_server: MakeServer
) -> None:
    closed = _free_port()
    missing = contained_command(
        ["no-such-program-xyz"], proxy_port=closed, cwd=tmp_path, relay_dir=tmp_path
    )
    if isinstance(missing, Refusal):
        pytest.skip(missing.reason)
    code, _, err = _run(missing)
    assert code == 127
    assert err == "harness containment: no-such-program-xyz: command not found\n"
    # A proxy port with nothing listening: the child's connection closes, it never hangs.
    code, out, _ = _run(
        _contain(
            tmp_path,
            closed,
            f"""
            import socket
            conn = socket.create_connection(("127.0.0.1", {closed}), timeout={_GUARD_SECONDS})
            conn.sendall(b"GET / HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            print("answer:", conn.recv(4096))
            """,
        )
    )
    assert (code, out) == (0, "answer: b''\n")


@pytest.mark.deep
def test_the_child_gets_the_signal_defaults_of_the_host(
    tmp_path: Path, make_server: MakeServer
) -> None:
    # Python ignores SIGPIPE and an ignored signal survives exec: without the
    # bridge's reset, `yes` would get EPIPE and complain instead of dying quietly.
    contained = contained_command(
        ["sh", "-c", "yes | head -n 1"],
        proxy_port=make_server().port,
        cwd=tmp_path,
        relay_dir=tmp_path,
    )
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    assert _run(contained) == (0, "y\n", "")


@pytest.mark.deep
def test_a_request_to_the_proxy_through_the_proxy_variables_reaches_it(
    tmp_path: Path, make_server: MakeServer
) -> None:
    # urllib skips NO_PROXY for [::1], so it asks the trap in absolute form; and
    # a CONNECT to the proxy's own address is tunnelled, not refused.
    proxy = make_server()
    contained = _contain(
        tmp_path,
        proxy.port,
        f"""
        import os, socket, urllib.parse, urllib.request
        request = urllib.request.Request("http://[::1]:{proxy.port}/v1?a=1", data=b"one")
        print(urllib.request.urlopen(request, timeout={_GUARD_SECONDS}).read().decode())
        trap = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
        tunnel = socket.create_connection((trap.hostname, trap.port), {_GUARD_SECONDS})
        tunnel.sendall(b"CONNECT 127.0.0.1:{proxy.port} HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
        print(tunnel.recv(4096).decode().splitlines()[0])
        tunnel.sendall(b"POST /v1 HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 3\\r\\n\\r\\ntwo")
        answer = b""
        while not answer.endswith(b"two"):
            answer += tunnel.recv(4096)
        print(answer.decode().splitlines()[-1])
        """,
    )
    code, out, err = _run(contained)
    assert (code, err) == (0, "")
    assert out == "got one\nHTTP/1.1 200 Connection established\ngot two\n"
    assert proxy.bodies == [b"one", b"two"]
    assert contained.blocked == ()


@pytest.mark.deep
@pytest.mark.skipif(
    not (shutil.which("node") and shutil.which("curl")), reason="needs node and curl"
)
def test_other_languages_reach_only_the_proxy(tmp_path: Path, make_server: MakeServer) -> None:
    proxy = make_server()
    script = tmp_path / "agent.mjs"
    script.write_text(
        f"const url = 'http://127.0.0.1:{proxy.port}/v1';\n"
        "const r = await fetch(url, {method: 'POST', body: 'node'});\n"
        "console.log(await r.text());\n"
        "try { await fetch('https://api.openai.com/v1/models'); }\n"
        "catch (e) { console.error(String(e.cause ?? e)); }\n"
    )
    contained = contained_command(
        ["sh", "-c", f"node {script}; curl -sS https://api.anthropic.com/v1/messages"],
        proxy_port=proxy.port,
        cwd=tmp_path,
        relay_dir=tmp_path,
    )
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    code, out, err = _run(contained)
    assert out == "got node\n"
    assert code != 0  # curl's refused tunnel
    # Node's fetch (before 22.21) ignores the proxy variables: its lookup fails
    # and says where; curl honours them: the trap names the host to the host.
    hosts = {*unreachable_hosts(err), *(b.host for b in contained.blocked)}
    assert hosts == {"api.openai.com", "api.anthropic.com"}


def test_a_contained_command_is_entered_once(tmp_path: Path) -> None:
    contained = contained_command(["true"], proxy_port=8080, cwd=tmp_path, relay_dir=tmp_path)
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    with contained, pytest.raises(ConfigurationError, match="entered once"):
        contained.__enter__()
    assert not contained.relay.folder.exists()


def test_the_relay_folder_is_private_where_asked_and_gone_after(tmp_path: Path) -> None:
    contained = contained_command(["true"], proxy_port=8080, cwd=tmp_path, relay_dir=tmp_path)
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    folder = contained.relay.folder
    assert folder.parent == tmp_path
    with contained:
        assert folder.stat().st_mode & 0o777 == 0o700
        assert sorted(p.name for p in folder.iterdir()) == ["control", "proxy"]
    assert not folder.exists()


def test_a_relay_dir_too_deep_for_a_socket_gives_way_to_tmp(tmp_path: Path) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    contained = contained_command(["true"], proxy_port=8080, cwd=tmp_path, relay_dir=deep)
    if isinstance(contained, Refusal):
        pytest.skip(contained.reason)
    assert contained.relay.folder.parent == Path("/tmp")  # named only: not entered, not made
