"""The long-connection path: lark-oapi's dispatcher feeds the shared adapter handler.

The websocket itself needs Feishu's servers; what is ours (the dispatcher
wiring and the event conversion) is tested by handing the SDK's dispatcher a
frame payload exactly as ``lark.ws.Client`` does.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from harness import Settings, build_application
from harness.integrations.feishu import (
    FeishuEventAdapter,
    RecordingMessenger,
    SentMessage,
    build_event_dispatcher,
    message_event,
)
from harness.providers import ScriptedProvider

if importlib.util.find_spec("lark_oapi") is None:  # importing it costs seconds per worker
    pytest.skip("the feishu extra is not installed", allow_module_level=True)


# One worker imports the heavy SDK for all of this module (see the root conftest).
pytestmark = [pytest.mark.xdist_group("lark"), pytest.mark.deep]


def test_sdk_dispatcher_delivers_message_events_to_the_adapter(tmp_path: Path) -> None:
    settings = Settings(workdir=tmp_path, state_dir=tmp_path / "state")
    app = build_application(settings, provider=ScriptedProvider(["hi from ws"]))
    messenger = RecordingMessenger()
    adapter = FeishuEventAdapter(app, messenger, approvers=frozenset())
    dispatcher = build_event_dispatcher(adapter)
    frame = json.dumps(message_event("@_user_1 hello", chat_id="oc_ws", message_id="om_ws"))
    try:
        # The public name warns; lark.ws.Client calls the same code as _do_without_validation.
        with pytest.warns(DeprecationWarning, match="do_without_validation"):
            dispatcher.do_without_validation(frame.encode("utf-8"))
        sent = messenger.wait_for_count(1)
    finally:
        adapter.close()
        app.close()
    assert sent == [SentMessage("reply", "om_ws", "hi from ws\n[stop_reason: final, steps: 1]")]
    assert app.sessions.list_keys() == ["feishu-oc_ws"]
