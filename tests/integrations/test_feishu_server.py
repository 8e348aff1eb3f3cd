"""The real server end to end: uvicorn on loopback, lark-oapi against a fake open API."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.approval.records import ApprovalStatus
from harness.integrations.feishu import (
    FakeFeishuOpenAPI,
    FeishuEventAdapter,
    FeishuSettings,
    LarkMessenger,
    SentMessage,
    create_app,
    feishu_signature,
    make_server,
    message_event,
)
from harness.providers import ScriptedProvider, tool_call

if importlib.util.find_spec("lark_oapi") is None:  # importing it costs seconds per worker
    pytest.skip("the feishu extra is not installed", allow_module_level=True)
pytest.importorskip("uvicorn")

# One worker imports the heavy SDK for all of this module (see the root conftest).
pytestmark = [pytest.mark.xdist_group("lark"), pytest.mark.deep]

DEMO = "approval-demo-key.txt"
TOKEN = "verify-token-1"
APPROVER = "ou_approver"
PATH = "/api/events/feishu"


@dataclass
class Served:
    http: httpx.Client
    api: FakeFeishuOpenAPI
    app: Application
    adapter: FeishuEventAdapter
    workdir: Path
    encrypt_key: str

    def post(self, document: dict[str, Any], **headers: str) -> httpx.Response:
        body = json.dumps(document).encode("utf-8")
        if self.encrypt_key and "encrypt" not in document:
            body = json.dumps({"encrypt": encrypt(body, self.encrypt_key)}).encode("utf-8")
            headers = {**signed_headers(body, self.encrypt_key), **headers}
        return self.http.post(PATH, content=body, headers=headers)

    def say(self, text: str, **fields: Any) -> httpx.Response:
        return self.post(message_event(text, token=TOKEN, **fields))

    def approval_id(self) -> str:
        messages = self.api.wait_for(lambda sent: any(_is_request(m) for m in sent))
        first = next(m for m in messages if _is_request(m))
        return first.text.splitlines()[0].removeprefix("Approval required: ")

    def reply_to(self, message_id: str) -> SentMessage:
        messages = self.api.wait_for(lambda sent: any(m.target == message_id for m in sent))
        return next(m for m in messages if m.target == message_id)


def _is_request(message: SentMessage) -> bool:
    return message.kind == "send" and message.text.startswith("Approval required:")


def encrypt(plaintext: bytes, key: str) -> str:
    """What Feishu does: AES-256-CBC, key sha256(key), random IV first, PKCS7, base64."""
    from Crypto.Cipher import AES

    iv = os.urandom(16)
    pad = 16 - len(plaintext) % 16
    cipher = AES.new(hashlib.sha256(key.encode()).digest(), AES.MODE_CBC, iv)
    return base64.b64encode(iv + cipher.encrypt(plaintext + bytes([pad]) * pad)).decode()


def signed_headers(body: bytes, key: str) -> dict[str, str]:
    timestamp, nonce = str(int(time.time())), "nonce-1"
    return {
        "X-Lark-Request-Timestamp": timestamp,
        "X-Lark-Request-Nonce": nonce,
        "X-Lark-Signature": feishu_signature(timestamp, nonce, key, body),
    }


def _serve(tmp_path: Path, turns: list[Any], encrypt_key: str) -> Iterator[Served]:
    workdir = tmp_path / "work"
    workdir.mkdir()
    settings = Settings(
        workdir=workdir,
        state_dir=tmp_path / "state",
        enabled_tools=("read", "write"),
        approval_provider="feishu",
    )
    app = build_application(settings, provider=ScriptedProvider(turns))
    feishu = FeishuSettings(
        verification_token=TOKEN, encrypt_key=encrypt_key, approvers=frozenset({APPROVER})
    )
    with FakeFeishuOpenAPI() as api:
        messenger = LarkMessenger("cli_test", "secret_test", base_url=api.base_url)
        adapter = FeishuEventAdapter(app, messenger, approvers=feishu.approvers)
        server = make_server(create_app(app, adapter, feishu), log_config=None)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        deadline = time.monotonic() + 5
        while not server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        assert server.started, "uvicorn did not start"
        base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        try:
            with httpx.Client(base_url=base, timeout=5) as http:
                yield Served(http, api, app, adapter, workdir, encrypt_key)
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            sock.close()
            app.close()
        assert api.unexpected == []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    turns = [tool_call("write", path=DEMO, content="demo\n", mode="overwrite"), "done"]
    yield from _serve(tmp_path, turns, encrypt_key="")


@pytest.fixture
def served_encrypted(tmp_path: Path) -> Iterator[Served]:
    turns = [tool_call("write", path=DEMO, content="demo\n", mode="overwrite"), "done"]
    yield from _serve(tmp_path, turns, encrypt_key="encrypt-key-1")


def test_health_and_url_verification(served: Served) -> None:
    health = served.http.get("/health", headers={"Authorization": f"Bearer {TOKEN}"}).json()
    assert health["status"] == "ok" and health["approval_provider"] == "feishu"
    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
        answer = served.http.get("/health", headers=headers)
        assert (answer.status_code, answer.json()) == (200, {"status": "ok"})
    challenge = {"type": "url_verification", "challenge": "c-123", "token": TOKEN}
    answer = served.post(challenge)
    assert (answer.status_code, answer.json()) == (200, {"challenge": "c-123"})


def test_wrong_or_missing_token_is_401_and_nothing_runs(served: Served) -> None:
    refused = [
        message_event("create it", token="wrong"),
        message_event("create it"),
        {"type": "url_verification", "challenge": "c", "token": "wrong"},
    ]
    assert [served.post(document).status_code for document in refused] == [401, 401, 401]
    served.adapter.close()  # drain: nothing may have been scheduled
    assert served.api.messages == [] and served.app.approvals.list() == []


def test_malformed_body_is_400(served: Served) -> None:
    assert served.http.post(PATH, content=b"{not json").status_code == 400


def test_message_pauses_then_approve_creates_the_file(served: Served) -> None:
    assert served.say("create the demo file", chat_id="oc_1").status_code == 200
    approval_id = served.approval_id()
    request = served.api.messages[0]
    assert request.target == "oc_1"
    assert f"/approve {approval_id}" in request.text
    assert f"/reject {approval_id} <reason>" in request.text
    assert not (served.workdir / DEMO).exists()

    served.say(
        f"@_user_1 /approve {approval_id}", chat_id="oc_1", sender=APPROVER, message_id="om_ok"
    )
    reply = served.reply_to("om_ok")
    assert reply.kind == "reply" and reply.text.startswith(f"Approved {approval_id}.")
    assert "done" in reply.text
    assert (served.workdir / DEMO).read_text() == "demo\n"


def test_reject_leaves_no_file(served: Served) -> None:
    served.say("create the demo file")
    approval_id = served.approval_id()
    served.say(f"/reject {approval_id} not today", sender=APPROVER, message_id="om_no")
    assert served.reply_to("om_no").text.startswith(f"Rejected {approval_id}.")
    assert not (served.workdir / DEMO).exists()
    assert served.app.approvals.load(approval_id).status is ApprovalStatus.REJECTED


def test_refusals_non_approver_and_other_chat(served: Served) -> None:
    served.say("create the demo file", chat_id="oc_1")
    approval_id = served.approval_id()
    served.say(f"/approve {approval_id}", chat_id="oc_1", sender="ou_other", message_id="om_a")
    assert "not allowed" in served.reply_to("om_a").text
    served.say(f"/approve {approval_id}", chat_id="oc_2", sender=APPROVER, message_id="om_b")
    assert "another session" in served.reply_to("om_b").text
    assert served.app.approvals.load(approval_id).status is ApprovalStatus.PENDING
    assert not (served.workdir / DEMO).exists()


def test_redelivered_event_is_processed_once(served: Served) -> None:
    event = message_event("create the demo file", token=TOKEN, event_id="ev_repeat")
    assert [served.post(event).status_code for _ in range(3)] == [200, 200, 200]
    served.approval_id()
    served.adapter.close()  # wait for any other scheduled work
    assert len(served.app.approvals.list()) == 1
    assert len(served.api.messages) == 1


def test_encrypted_and_signed_round_trip(served_encrypted: Served) -> None:
    served = served_encrypted
    challenge = {"type": "url_verification", "challenge": "c-enc", "token": TOKEN}
    assert served.post(challenge).json() == {"challenge": "c-enc"}
    assert served.say("create the demo file").status_code == 200
    assert served.approval_id()


def test_encrypted_mode_rejects_unauthentic_requests(served_encrypted: Served) -> None:
    served = served_encrypted
    plain = json.dumps(message_event("create it", token=TOKEN)).encode()
    sealed = json.dumps({"encrypt": encrypt(plain, served.encrypt_key)}).encode()
    foreign = json.dumps({"encrypt": encrypt(plain, "another-key")}).encode()
    forged = {**signed_headers(sealed, served.encrypt_key), "X-Lark-Signature": "0" * 64}
    attempts = {
        "bad-signature": (sealed, forged),
        "unsigned": (sealed, {}),
        "plaintext-with-key-set": (plain, signed_headers(plain, served.encrypt_key)),
        "encrypted-with-another-key": (foreign, signed_headers(foreign, served.encrypt_key)),
    }
    statuses = {
        name: served.http.post(PATH, content=body, headers=headers).status_code
        for name, (body, headers) in attempts.items()
    }
    assert statuses == dict.fromkeys(attempts, 401)
    served.adapter.close()
    assert served.api.messages == []
