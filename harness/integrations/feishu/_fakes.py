"""Strict fakes of the Feishu side: an in-memory messenger and a loopback open API.

``RecordingMessenger`` replaces ``FeishuMessenger`` in unit tests.
``FakeFeishuOpenAPI`` is a real HTTP server on 127.0.0.1 speaking the few
open API routes the adapter uses, so the real SDK path (``LarkMessenger``)
can be tested offline: point ``base_url`` at it. Both record what was sent
and let a test wait, with a bound, for background work to deliver.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

__all__ = ["FakeFeishuOpenAPI", "RecordingMessenger", "SentMessage", "message_event"]

_TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
_CREATE_PATH = "/open-apis/im/v1/messages"
_REPLY_PATH = re.compile(r"^/open-apis/im/v1/messages/(?P<message_id>[^/]+)/reply$")


_ids = itertools.count(1)


def message_event(
    text: str,
    *,
    chat_id: str = "oc_chat",
    sender: str = "ou_sender",
    token: str = "",
    event_id: str | None = None,
    message_id: str | None = None,
    message_type: str = "text",
) -> dict[str, Any]:
    """A schema 2.0 ``im.message.receive_v1`` event shaped as Feishu sends it."""
    number = next(_ids)
    content = {"text": text} if message_type == "text" else {"image_key": "img_fake"}
    return {
        "schema": "2.0",
        "header": {
            "event_id": event_id or f"ev_fake_{number}",
            "event_type": "im.message.receive_v1",
            "create_time": "1700000000000",
            "token": token,
            "app_id": "cli_fake",
            "tenant_key": "tenant_fake",
        },
        "event": {
            "sender": {
                "sender_id": {"open_id": sender, "union_id": "on_fake", "user_id": None},
                "sender_type": "user",
                "tenant_key": "tenant_fake",
            },
            "message": {
                "message_id": message_id or f"om_in_{number}",
                "create_time": "1700000000000",
                "chat_id": chat_id,
                "chat_type": "group",
                "message_type": message_type,
                "content": json.dumps(content, ensure_ascii=False),
            },
        },
    }


@dataclass(frozen=True)
class SentMessage:
    """One delivered message: ``kind`` "send" targets a chat id, "reply" a message id."""

    kind: Literal["send", "reply"]
    target: str
    text: str


class _Outbox:
    """Messages in arrival order, with a bounded wait for background senders."""

    def __init__(self) -> None:
        self.messages: list[SentMessage] = []
        self._changed = threading.Condition()

    def add(self, message: SentMessage) -> None:
        with self._changed:
            self.messages.append(message)
            self._changed.notify_all()

    def wait_for(self, predicate: Callable[[list[SentMessage]], bool], timeout: float) -> None:
        with self._changed:
            if not self._changed.wait_for(lambda: predicate(list(self.messages)), timeout):
                shown = "\n".join(f"  {m.kind} {m.target}: {m.text[:120]!r}" for m in self.messages)
                raise AssertionError(f"no expected message within {timeout}s; got:\n{shown}")


class RecordingMessenger:
    """A ``FeishuMessenger`` that keeps every message; ``fail`` makes every call raise it."""

    def __init__(self, *, fail: Exception | None = None) -> None:
        self._outbox = _Outbox()
        self.fail = fail

    @property
    def messages(self) -> list[SentMessage]:
        return list(self._outbox.messages)

    def send_text(self, chat_id: str, text: str) -> str | None:
        return self._deliver(SentMessage("send", chat_id, text))

    def reply_text(self, message_id: str, text: str) -> str | None:
        return self._deliver(SentMessage("reply", message_id, text))

    def wait_for_count(self, count: int, timeout: float = 5.0) -> list[SentMessage]:
        """Block until at least ``count`` messages arrived; fail after ``timeout``."""
        self._outbox.wait_for(lambda sent: len(sent) >= count, timeout)
        return self.messages

    def _deliver(self, message: SentMessage) -> str:
        if self.fail is not None:
            raise self.fail
        self._outbox.add(message)
        return f"om_fake_{len(self._outbox.messages)}"


class FakeFeishuOpenAPI:
    """A loopback Feishu open API: tenant token, create message, reply to message.

    Anything else is answered 404 and kept in ``unexpected`` (strict: a test
    can assert it stayed empty). Use as a context manager, or ``start``/``stop``.
    """

    def __init__(self) -> None:
        self._outbox = _Outbox()
        self.token_requests: list[dict[str, Any]] = []
        self.unexpected: list[str] = []
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        # A short poll interval keeps stop() fast (shutdown waits for one poll).
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def messages(self) -> list[SentMessage]:
        return list(self._outbox.messages)

    def wait_for(
        self, predicate: Callable[[list[SentMessage]], bool], timeout: float = 5.0
    ) -> list[SentMessage]:
        """Block until ``predicate(messages)`` holds; fail after ``timeout`` seconds."""
        self._outbox.wait_for(predicate, timeout)
        return self.messages

    def start(self) -> FakeFeishuOpenAPI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> FakeFeishuOpenAPI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _answer(self, method: str, url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        parts = urlsplit(url)
        if method == "POST" and parts.path == _TOKEN_PATH:
            self.token_requests.append(body)
            return 200, {"code": 0, "msg": "ok", "tenant_access_token": "t-fake", "expire": 7200}
        reply = _REPLY_PATH.match(parts.path)
        if method == "POST" and parts.path == _CREATE_PATH:
            if parse_qs(parts.query).get("receive_id_type") != ["chat_id"]:
                self.unexpected.append(url)
                return 400, {"code": 99992402, "msg": "receive_id_type must be chat_id"}
            message = SentMessage("send", str(body.get("receive_id")), _text_of(body))
        elif method == "POST" and reply is not None:
            message = SentMessage("reply", reply["message_id"], _text_of(body))
        else:
            self.unexpected.append(f"{method} {url}")
            return 404, {"code": 404, "msg": "not found"}
        self._outbox.add(message)
        message_id = f"om_fake_{len(self._outbox.messages)}"
        return 200, {"code": 0, "msg": "success", "data": {"message_id": message_id}}

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b"{}"
                status, answer = api._answer("POST", self.path, json.loads(raw or b"{}"))
                data = json.dumps(answer).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return  # keep test output quiet

        return Handler


def _text_of(body: dict[str, Any]) -> str:
    content = json.loads(str(body.get("content") or "{}"))
    return str(content.get("text", ""))
