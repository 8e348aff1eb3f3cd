"""A real ``harness serve`` subprocess on 127.0.0.1, attacked as the internet would.

Each case talks HTTP to the process (raw sockets where the framing itself is
the attack) and watches what reaches the loopback fake of Feishu's open API.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from harness.integrations.feishu import (
    MAX_BODY_BYTES,
    FakeFeishuOpenAPI,
    SentMessage,
    feishu_signature,
    message_event,
)

if importlib.util.find_spec("lark_oapi") is None:  # importing it costs seconds per worker
    pytest.skip("the feishu extra is not installed", allow_module_level=True)
pytest.importorskip("uvicorn")
pytest.importorskip("Crypto")

from tests.integrations._feishu_crypto import encrypt
from tests.suite.signals import DEFAULT_SIGINT

pytestmark = pytest.mark.deep

TOKEN = "verify-token-proc"
KEY = "encrypt-key-proc"
PATH = "/api/events/feishu"
WAIT = 20.0  # bound on waits for the process, so a regression fails instead of hanging


@dataclass
class Server:
    process: subprocess.Popen[str]
    port: int
    encrypt_key: str

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def post(self, body: bytes, headers: dict[str, str] | None = None) -> httpx.Response:
        return httpx.post(self.base + PATH, content=body, headers=headers or {}, timeout=WAIT)

    def sealed(self, document: dict[str, object], *, age: int = 0) -> tuple[bytes, dict[str, str]]:
        """The request Feishu would send for ``document``, signed ``age`` seconds ago."""
        plain = json.dumps(document).encode()
        if not self.encrypt_key:
            return plain, {}
        body = json.dumps({"encrypt": encrypt(plain, self.encrypt_key)}).encode()
        timestamp, nonce = str(int(time.time()) - age), "nonce-proc"
        return body, {
            "X-Lark-Request-Timestamp": timestamp,
            "X-Lark-Request-Nonce": nonce,
            "X-Lark-Signature": feishu_signature(timestamp, nonce, self.encrypt_key, body),
        }


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def _start(root: Path, api: FakeFeishuOpenAPI, encrypt_key: str) -> Server:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARNESS_", "FEISHU_"))}
    env |= {
        "HARNESS_WORKDIR": str(root / "work"),
        "HARNESS_STATE_DIR": str(root / "state"),
        "HARNESS_PROVIDER": "echo",
        "HARNESS_APPROVAL_PROVIDER": "off",
        "FEISHU_APP_ID": "cli_proc",
        "FEISHU_APP_SECRET": "secret_proc",
        "FEISHU_VERIFICATION_TOKEN": TOKEN,
        "FEISHU_BASE_URL": api.base_url,
    }
    if encrypt_key:
        env["FEISHU_ENCRYPT_KEY"] = encrypt_key
    (root / "work").mkdir(exist_ok=True)
    port = _free_port()
    process = subprocess.Popen(
        [*DEFAULT_SIGINT, "-m", "harness", "serve", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    server = Server(process, port, encrypt_key)
    for _ in range(400):  # bounded readiness poll, not a timing assertion
        if process.poll() is not None:
            pytest.fail(f"harness serve exited: {process.stderr.read() if process.stderr else ''}")
        try:
            if httpx.get(server.base + "/health", timeout=1).status_code == 200:
                return server
        except httpx.TransportError:
            time.sleep(0.05)
    _stop(server)
    pytest.fail("harness serve did not start")


def _stop(server: Server) -> None:
    if server.process.poll() is None:
        server.process.send_signal(signal.SIGINT)
        try:
            server.process.wait(timeout=WAIT)
        except subprocess.TimeoutExpired:
            server.process.kill()
            server.process.wait()
    if server.process.stderr:
        server.process.stderr.close()


@pytest.fixture(scope="module")
def api() -> Iterator[FakeFeishuOpenAPI]:
    with FakeFeishuOpenAPI() as fake:
        yield fake


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, api: FakeFeishuOpenAPI) -> Iterator[Server]:
    server = _start(tmp_path_factory.mktemp("signed"), api, KEY)
    yield server
    _stop(server)


def _raw_exchange(port: int, head: bytes, chunks: list[bytes]) -> bytes:
    """Send ``head`` and ``chunks`` on one connection; return what the server answered."""
    with socket.create_connection(("127.0.0.1", port), timeout=WAIT) as sock:
        sock.sendall(head)
        for chunk in chunks:
            sock.sendall(chunk)
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = sock.recv(65536)
            if not data:
                break
            answer += data
    return answer


def _replies_to(api: FakeFeishuOpenAPI, message_id: str) -> list[SentMessage]:
    return [m for m in api.messages if m.kind == "reply" and m.target == message_id]


def _wait_reply(api: FakeFeishuOpenAPI, message_id: str) -> SentMessage:
    api.wait_for(lambda sent: any(m.target == message_id for m in sent), timeout=WAIT)
    return _replies_to(api, message_id)[0]


def test_a_declared_oversized_body_is_refused_before_it_is_read(signed: Server) -> None:
    # 2 MiB announced, a few bytes sent: the 413 can only come back if the
    # server decided from the header instead of waiting for the body.
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {2 * MAX_BODY_BYTES}\r\n\r\n"
    ).encode()
    answer = _raw_exchange(signed.port, head, [b'{"encrypt": "'])
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_a_chunked_oversized_body_is_refused_while_streaming(signed: Server) -> None:
    head = (
        f"POST {PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    piece = b"x" * 65536
    count = MAX_BODY_BYTES // len(piece)
    chunks = [b"%x\r\n%s\r\n" % (len(piece), piece)] * count + [b"1\r\nx\r\n", b"0\r\n\r\n"]
    answer = _raw_exchange(signed.port, head, chunks)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]


def test_a_body_of_exactly_the_limit_is_read(signed: Server) -> None:
    body = b" " * (MAX_BODY_BYTES - 2) + b"{}"
    assert signed.post(body).status_code == 401  # read, parsed, then not authentic


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 200_000 + b"]" * 200_000,
        b"[" * 200_000,
        json.dumps({"schema": "2.0", "deep": json.loads("[" * 65 + "]" * 65)}).encode(),
        b'{"a": ' * 5000 + b"1" + b"}" * 5000,
    ],
    ids=["deep-array", "unterminated", "65-levels", "deep-object"],
)
def test_deeply_nested_json_is_400_and_the_server_lives_on(signed: Server, body: bytes) -> None:
    answer = signed.post(body)
    assert answer.status_code == 400
    assert httpx.get(signed.base + "/health", timeout=WAIT).json() == {"status": "ok"}


def test_brackets_inside_strings_do_not_count_as_nesting(signed: Server) -> None:
    body = json.dumps({"encrypt": "[" * 10_000}).encode()
    assert signed.post(body).status_code == 401  # parsed: only the decryption fails


# Not at the edge: the server's clock moves on while a loaded machine delivers the
# request. The exact 300 s edges are unit-tested in test_feishu_limits.
@pytest.mark.parametrize("age", [301, 3600, -400], ids=["stale", "an-hour-old", "future"])
def test_a_signed_event_outside_five_minutes_is_refused(
    signed: Server, api: FakeFeishuOpenAPI, age: int
) -> None:
    message_id = f"om_age_{age}"
    body, headers = signed.sealed(
        message_event("stale hello", token=TOKEN, message_id=message_id), age=age
    )
    assert signed.post(body, headers).status_code == 401
    fresh_id = f"om_fresh_{age}"
    body, headers = signed.sealed(message_event("fresh hello", token=TOKEN, message_id=fresh_id))
    assert signed.post(body, headers).status_code == 200
    assert "fresh hello" in _wait_reply(api, fresh_id).text
    assert _replies_to(api, message_id) == []


def test_health_without_the_token_says_only_ok(signed: Server) -> None:
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {TOKEN}"}):
        answer = httpx.get(signed.base + "/health", headers=headers, timeout=WAIT)
        assert answer.status_code == 200 and answer.json() == {"status": "ok"}
    full = httpx.get(
        signed.base + "/health", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=WAIT
    ).json()
    assert full["status"] == "ok" and full["provider"] == "echo"
    assert full["feishu_path"] == PATH


# Each variant starts `harness serve` twice (seconds of CPU each, for lark_oapi's
# import). The default run restarts the signed server; the deep tier the plaintext
# one too. Seen-event persistence itself is test_feishu_limits.py's, in process.
@pytest.mark.parametrize(
    "encrypt_key",
    [KEY, pytest.param("", marks=pytest.mark.deep)],
    ids=["signed", "plaintext"],
)
def test_a_captured_event_replayed_after_a_restart_is_not_processed(
    tmp_path: Path, api: FakeFeishuOpenAPI, encrypt_key: str
) -> None:
    chat = f"oc_replay_{encrypt_key or 'plain'}"
    message_id = f"om_captured_{encrypt_key or 'plain'}"
    first = _start(tmp_path, api, encrypt_key)
    try:
        captured = first.sealed(
            message_event("run once", token=TOKEN, chat_id=chat, message_id=message_id)
        )
        assert first.post(*captured).status_code == 200
        _wait_reply(api, message_id)
    finally:
        _stop(first)
    assert (tmp_path / "state" / "feishu" / "seen-events.json").is_file()

    second = _start(tmp_path, api, encrypt_key)
    try:
        assert second.post(*captured).status_code == 200  # acknowledged, so Feishu stops
        # The same chat runs in order: once the next message is answered, a
        # processed replay would have been answered before it.
        after = f"{message_id}_next"
        body, headers = second.sealed(
            message_event("then this", token=TOKEN, chat_id=chat, message_id=after)
        )
        assert second.post(body, headers).status_code == 200
        _wait_reply(api, after)
    finally:
        _stop(second)
    assert len(_replies_to(api, message_id)) == 1
