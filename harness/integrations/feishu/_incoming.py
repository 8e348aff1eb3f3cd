"""Reading an ``im.message.receive_v1`` event, and the session a chat maps to."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from harness.integrations.feishu._bounded_json import loads_bounded
from harness.session import SessionRef

__all__ = ["MESSAGE_EVENT_TYPE", "IncomingMessage", "parse_message_event", "session_for_chat"]

MESSAGE_EVENT_TYPE = "im.message.receive_v1"

_UNSAFE_KEY_CHARS = re.compile(r"[^A-Za-z0-9_.:-]")
_DOUBLE_DOT = re.compile(r"\.(?=\.)")


@dataclass(frozen=True)
class IncomingMessage:
    """The parts of a received message the adapter acts on.

    ``text`` is None for anything but a text message (images, files, posts).
    """

    event_id: str
    chat_id: str
    message_id: str
    sender_open_id: str
    message_type: str
    text: str | None
    chat_type: str | None = None
    sender_type: str | None = None


def parse_message_event(payload: Mapping[str, Any]) -> IncomingMessage | None:
    """The message in a schema 2.0 ``im.message.receive_v1`` event, else None.

    Other event types and events missing an id are None: the adapter
    acknowledges and ignores them rather than guessing.
    """
    header = _mapping(payload.get("header"))
    if payload.get("schema") != "2.0" or header.get("event_type") != MESSAGE_EVENT_TYPE:
        return None
    event = _mapping(payload.get("event"))
    message = _mapping(event.get("message"))
    sender = _mapping(event.get("sender"))
    incoming = IncomingMessage(
        event_id=_str(header.get("event_id")),
        chat_id=_str(message.get("chat_id")),
        message_id=_str(message.get("message_id")),
        sender_open_id=_str(_mapping(sender.get("sender_id")).get("open_id")),
        message_type=_str(message.get("message_type")),
        text=_text(message) if message.get("message_type") == "text" else None,
        chat_type=_str(message.get("chat_type")) or None,
        sender_type=_str(sender.get("sender_type")) or None,
    )
    required = (incoming.event_id, incoming.chat_id, incoming.message_id, incoming.message_type)
    return incoming if all(required) and incoming.sender_open_id else None


def session_for_chat(chat_id: str, chat_type: str | None = None) -> SessionRef:
    """The session of a Feishu chat: one per chat, key ``feishu-<chat_id>`` made path-safe."""
    raw = f"feishu-{chat_id}"
    # SessionRef refuses "..": turn every dot that precedes another dot into "-".
    key = _DOUBLE_DOT.sub("-", _UNSAFE_KEY_CHARS.sub("-", raw))
    if key != raw or len(key) > 250:
        # The key is what keeps one chat from deciding another's approvals, so
        # two ids that sanitise alike must still get different keys.
        digest = hashlib.sha256(chat_id.encode("utf-8")).hexdigest()[:12]
        key = f"{key[:237]}-{digest}"
    kind = f"{chat_type} chat" if chat_type else "chat"
    return SessionRef(
        key=key,
        source="feishu",
        external_id=chat_id,
        display_name=f"Feishu {kind} {chat_id}",
    )


def _text(message: Mapping[str, Any]) -> str | None:
    try:
        content = loads_bounded(str(message.get("content") or ""))
    except ValueError:  # not JSON, or nested too deep: not a text we act on
        return None
    text = content.get("text") if isinstance(content, dict) else None
    return text if isinstance(text, str) else None


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""
