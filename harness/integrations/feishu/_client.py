"""The typed boundary to the Feishu open API: send a text message, reply to one.

``FeishuMessenger`` is the seam; ``LarkMessenger`` implements it with the
official ``lark-oapi`` SDK, imported only when one is built (the SDK takes
seconds to import). SDK and network failures become ``FeishuError`` here.
"""

from __future__ import annotations

import json
from typing import Any, Protocol, runtime_checkable

from harness.core.errors import ConfigurationError, HarnessError

__all__ = ["FeishuError", "FeishuMessenger", "LarkMessenger"]


class FeishuError(HarnessError):
    """The Feishu open API refused or could not be reached; nothing was delivered."""


@runtime_checkable
class FeishuMessenger(Protocol):
    """Sends plain-text messages to Feishu.

    Contract: each call delivers one message or raises ``FeishuError``;
    both return the new message's id (or ``None`` when the API omits it).
    """

    def send_text(self, chat_id: str, text: str) -> str | None:
        """Post ``text`` as a new message in chat ``chat_id``."""
        ...

    def reply_text(self, message_id: str, text: str) -> str | None:
        """Post ``text`` as a reply to message ``message_id``."""
        ...


class LarkMessenger:
    """``FeishuMessenger`` over ``lark_oapi.Client`` (tenant token handled by the SDK).

    Args:
        app_id: FEISHU_APP_ID.
        app_secret: FEISHU_APP_SECRET.
        base_url: the open API origin (FEISHU_BASE_URL), e.g. a loopback fake in
            tests or https://open.larksuite.com; default https://open.feishu.cn.
        timeout: seconds per HTTP request.
    """

    def __init__(
        self, app_id: str, app_secret: str, *, base_url: str | None = None, timeout: float = 10.0
    ) -> None:
        import lark_oapi as lark

        builder = (
            lark.Client.builder()
            .app_id(app_id)
            .app_secret(app_secret)
            .timeout(timeout)
            .log_level(lark.LogLevel.WARNING)
        )
        if base_url:
            try:
                builder = builder.domain(base_url.rstrip("/"))
            except ValueError as exc:
                raise ConfigurationError(f"FEISHU_BASE_URL: {exc}") from None
        self._client: Any = builder.build()

    def send_text(self, chat_id: str, text: str) -> str | None:
        from lark_oapi.api.im.v1 import CreateMessageRequest, CreateMessageRequestBody

        body = (
            CreateMessageRequestBody.builder()
            .receive_id(chat_id)
            .msg_type("text")
            .content(_text_content(text))
            .build()
        )
        request = CreateMessageRequest.builder().receive_id_type("chat_id").request_body(body)
        return self._call("send a message", self._client.im.v1.message.create, request.build())

    def reply_text(self, message_id: str, text: str) -> str | None:
        from lark_oapi.api.im.v1 import ReplyMessageRequest, ReplyMessageRequestBody

        body = ReplyMessageRequestBody.builder().msg_type("text").content(_text_content(text))
        request = ReplyMessageRequest.builder().message_id(message_id).request_body(body.build())
        return self._call("reply to a message", self._client.im.v1.message.reply, request.build())

    @staticmethod
    def _call(action: str, method: Any, request: Any) -> str | None:
        try:
            response = method(request)
        except Exception as exc:  # requests, token and SDK errors all enter here
            raise FeishuError(
                f"could not {action} on Feishu ({type(exc).__name__}: {exc}); check "
                "FEISHU_APP_ID, FEISHU_APP_SECRET, FEISHU_BASE_URL and the network"
            ) from exc
        if not response.success():
            raise FeishuError(
                f"Feishu refused to {action} (code {response.code}: {response.msg}); check the "
                "app's im:message permissions and that the bot is in the chat"
            )
        data = getattr(response, "data", None)
        message_id = getattr(data, "message_id", None)
        return message_id if isinstance(message_id, str) else None


def _text_content(text: str) -> str:
    # Feishu takes the content of a text message as a JSON document in a string.
    return json.dumps({"text": text}, ensure_ascii=False)
