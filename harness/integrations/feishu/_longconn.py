"""Receiving events over Feishu's long connection (``lark.ws.Client``) instead of HTTP.

The connection is authenticated by the app credentials, so there is no token
or signature to check; events go through the SDK's dispatcher into the very
same ``FeishuEventAdapter.handle_event`` the webhook uses.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

from harness.integrations.feishu._events import FeishuEventAdapter
from harness.integrations.feishu.settings import FeishuSettings

__all__ = ["build_event_dispatcher", "start_long_connection"]

logger = logging.getLogger("harness.feishu")


def build_event_dispatcher(adapter: FeishuEventAdapter) -> Any:
    """A ``lark_oapi.EventDispatcherHandler`` passing message events to ``adapter``."""
    import lark_oapi as lark

    def on_message(data: Any) -> None:
        # The SDK hands over a typed object; its JSON is the webhook's event
        # document, so both transports share one parser.
        adapter.handle_event(json.loads(lark.JSON.marshal(data)))

    builder = lark.EventDispatcherHandler.builder("", "")
    return builder.register_p2_im_message_receive_v1(on_message).build()


def start_long_connection(
    adapter: FeishuEventAdapter, settings: FeishuSettings
) -> threading.Thread:
    """Connect to Feishu in a daemon thread and feed its events to ``adapter``.

    The SDK client runs its own event loop (and reconnects by itself), so it
    gets a thread; the thread ends with the process.
    """
    import lark_oapi as lark

    client = lark.ws.Client(
        settings.app_id,
        settings.app_secret.get_secret_value(),
        event_handler=build_event_dispatcher(adapter),
        domain=(settings.base_url or lark.FEISHU_DOMAIN).rstrip("/"),
        log_level=lark.LogLevel.INFO,
    )

    def run() -> None:
        try:
            client.start()
        except Exception:
            logger.exception("the Feishu long connection stopped")

    thread = threading.Thread(target=run, name="harness-feishu-ws", daemon=True)
    thread.start()
    return thread
