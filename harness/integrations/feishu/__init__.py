"""Feishu (Lark) adapter: chat messages run the agent; approvals are decided in the chat.

Feishu is an adapter around the application, never a tool the model sees:

- ``_commands``: the ``/approve <id>`` and ``/reject <id> [reason]`` grammar.
- ``_channel``: ``FeishuChannel``, a chat as a run's channel and ``ApprovalRequester``.
- ``_client``: the ``FeishuMessenger`` seam and ``LarkMessenger`` over lark-oapi.
- ``_incoming``: reading ``im.message.receive_v1`` events; one session per chat.
- ``_events``: ``FeishuEventAdapter``, the handler shared by both transports.
- ``_webhook``: token, decryption and signature checks of webhook requests.
- ``_dedup``: the bounded memory of seen event ids, persisted under the state dir.
- ``_bounded_json``: JSON parsing with the nesting bounded first.
- ``_serial``: one chat's work in order, chats in parallel, on one pool.
- ``_server``: the starlette app (``/health``, webhook) and its uvicorn server.
- ``_longconn``: receiving events over lark-oapi's long connection instead.
- ``settings``: ``FeishuSettings`` from ``FEISHU_*`` / ``HARNESS_FEISHU_*``.
- ``_fakes``: a recording messenger and a loopback fake of the open API.

Importing this package does not import lark-oapi, starlette or uvicorn (the
optional ``harness-toolkit[feishu]`` extra); they load when first used.
"""

from harness.integrations.feishu._bounded_json import (
    MAX_JSON_DEPTH,
    JsonTooDeep,
    json_depth,
    loads_bounded,
)
from harness.integrations.feishu._channel import (
    MAX_MESSAGE_CHARS,
    FeishuChannel,
    format_approval_message,
    format_run_result,
)
from harness.integrations.feishu._client import FeishuError, FeishuMessenger, LarkMessenger
from harness.integrations.feishu._commands import (
    APPROVAL_ID_PATTERN,
    ApprovalCommand,
    ApprovalCommandError,
    parse_approval_command,
    strip_mentions,
)
from harness.integrations.feishu._dedup import SEEN_EVENTS_FILE, EventDeduplicator
from harness.integrations.feishu._events import FeishuEventAdapter
from harness.integrations.feishu._fakes import (
    FakeFeishuOpenAPI,
    RecordingMessenger,
    SentMessage,
    message_event,
)
from harness.integrations.feishu._incoming import (
    MESSAGE_EVENT_TYPE,
    IncomingMessage,
    parse_message_event,
    session_for_chat,
)
from harness.integrations.feishu._longconn import build_event_dispatcher, start_long_connection
from harness.integrations.feishu._serial import KeyedSerialRunner
from harness.integrations.feishu._server import MAX_BODY_BYTES, create_app, make_server
from harness.integrations.feishu._webhook import (
    MAX_EVENT_AGE_SECONDS,
    VerifiedWebhook,
    WebhookRejected,
    feishu_signature,
    verify_webhook,
)
from harness.integrations.feishu.settings import DEFAULT_FEISHU_PATH, FeishuSettings

__all__ = [
    "APPROVAL_ID_PATTERN",
    "DEFAULT_FEISHU_PATH",
    "MAX_BODY_BYTES",
    "MAX_EVENT_AGE_SECONDS",
    "MAX_JSON_DEPTH",
    "MAX_MESSAGE_CHARS",
    "MESSAGE_EVENT_TYPE",
    "SEEN_EVENTS_FILE",
    "ApprovalCommand",
    "ApprovalCommandError",
    "EventDeduplicator",
    "FakeFeishuOpenAPI",
    "FeishuChannel",
    "FeishuError",
    "FeishuEventAdapter",
    "FeishuMessenger",
    "FeishuSettings",
    "IncomingMessage",
    "JsonTooDeep",
    "KeyedSerialRunner",
    "LarkMessenger",
    "RecordingMessenger",
    "SentMessage",
    "VerifiedWebhook",
    "WebhookRejected",
    "build_event_dispatcher",
    "create_app",
    "feishu_signature",
    "format_approval_message",
    "format_run_result",
    "json_depth",
    "loads_bounded",
    "make_server",
    "message_event",
    "parse_approval_command",
    "parse_message_event",
    "session_for_chat",
    "start_long_connection",
    "strip_mentions",
    "verify_webhook",
]
