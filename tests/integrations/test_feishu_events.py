"""FeishuEventAdapter on a real application and real files, with a recording messenger."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from harness import Settings, build_application
from harness.app import Application
from harness.approval.records import ApprovalStatus
from harness.core import Role
from harness.integrations.feishu import (
    EventDeduplicator,
    FeishuError,
    FeishuEventAdapter,
    KeyedSerialRunner,
    RecordingMessenger,
    SentMessage,
    message_event,
    parse_message_event,
)
from harness.providers import ScriptedProvider, tool_call

DEMO = "approval-demo-key.txt"
APPROVER = "ou_approver"
PROMPT = "please create the demo file"


class Harness:
    """An application, its scripted provider, a recording messenger and the adapter."""

    def __init__(self, tmp_path: Path, turns: list[Any], approvers: frozenset[str]) -> None:
        self.workdir = tmp_path / "work"
        self.workdir.mkdir()
        self.provider = ScriptedProvider(turns)
        settings = Settings(
            workdir=self.workdir,
            state_dir=tmp_path / "state",
            enabled_tools=("read", "write"),
            approval_provider="feishu",
        )
        self.app: Application = build_application(settings, provider=self.provider)
        self.messenger = RecordingMessenger()
        self.adapter = FeishuEventAdapter(self.app, self.messenger, approvers=approvers)

    def say(self, text: str, **fields: Any) -> list[SentMessage]:
        """Deliver one message event, wait for its work, return what was sent since."""
        before = len(self.messenger.messages)
        future = self.adapter.handle_event(message_event(text, **fields))
        assert future is not None, "the event was not scheduled"
        future.result(timeout=10)
        return self.messenger.messages[before:]

    def pause(self, **fields: Any) -> str:
        sent = self.say(PROMPT, **fields)
        assert [m.kind for m in sent] == ["send"], sent
        approval_id = sent[0].text.splitlines()[0].removeprefix("Approval required: ")
        assert self.app.approvals.load(approval_id).status is ApprovalStatus.PENDING
        return approval_id


@pytest.fixture
def make(tmp_path: Path) -> Iterator[Any]:
    made: list[Harness] = []

    def build(
        *after: Any, approvers: frozenset[str] = frozenset({APPROVER}), pause: bool = True
    ) -> Harness:
        first = [tool_call("write", path=DEMO, content="demo\n", mode="overwrite")] if pause else []
        made.append(Harness(tmp_path, [*first, *after], approvers))
        return made[-1]

    yield build
    for harness in made:
        harness.adapter.close()
        harness.app.close()


def test_plain_message_pauses_and_posts_the_approval_request(make: Any) -> None:
    h = make()
    sent = h.say(PROMPT, chat_id="oc_1", message_id="om_prompt")
    assert len(sent) == 1 and sent[0].kind == "send" and sent[0].target == "oc_1"
    record = h.app.approvals.list()[0]
    assert record.session_key == "feishu-oc_1"
    for part in (record.approval_id, f"/approve {record.approval_id}", "/reject", "Tool: write"):
        assert part in sent[0].text
    assert "Feishu group chat oc_1" in sent[0].text
    assert not (h.workdir / DEMO).exists()


def test_approve_from_an_approver_runs_the_call_and_replies(make: Any) -> None:
    h = make("created it")
    approval_id = h.pause(chat_id="oc_1")
    sent = h.say(
        f"@_user_1 /approve {approval_id}", chat_id="oc_1", sender=APPROVER, message_id="om_cmd"
    )
    assert (h.workdir / DEMO).read_text() == "demo\n"
    assert sent == [
        SentMessage(
            "reply",
            "om_cmd",
            f"Approved {approval_id}.\ncreated it\n[stop_reason: final, steps: 2]",
        )
    ]
    assert h.app.approvals.load(approval_id).status is ApprovalStatus.CONSUMED


def test_reject_executes_nothing_and_passes_the_reason(make: Any) -> None:
    h = make("ok, not created")
    approval_id = h.pause()
    sent = h.say(f"/reject {approval_id} not on Friday", sender=APPROVER)
    assert not (h.workdir / DEMO).exists()
    assert sent[0].kind == "reply" and sent[0].text.startswith(f"Rejected {approval_id}.")
    tool_message = [m for m in h.provider.requests[-1].messages if m.role is Role.TOOL][-1]
    assert "not on Friday" in tool_message.content


def test_approver_not_in_allowlist_is_refused_and_logged(
    make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    h = make()
    approval_id = h.pause()
    with caplog.at_level(logging.INFO, logger="harness.feishu"):
        sent = h.say(f"/approve {approval_id}", sender="ou_intruder")
    assert "not allowed to decide approvals" in sent[0].text
    assert h.app.approvals.load(approval_id).status is ApprovalStatus.PENDING
    refusal = [r for r in caplog.records if "not an approver" in r.getMessage()]
    assert refusal and "ou_intruder" in refusal[0].getMessage()
    assert not any(PROMPT in r.getMessage() for r in caplog.records)


def test_empty_allowlist_refuses_every_decision(make: Any) -> None:
    h = make(approvers=frozenset())
    approval_id = h.pause()
    sent = h.say(f"/approve {approval_id}", sender=APPROVER)
    assert "no Feishu approvers are configured" in sent[0].text
    assert h.app.approvals.load(approval_id).status is ApprovalStatus.PENDING


def test_approval_id_from_another_chat_is_refused(make: Any) -> None:
    h = make()
    approval_id = h.pause(chat_id="oc_1")
    sent = h.say(f"/approve {approval_id}", chat_id="oc_2", sender=APPROVER)
    assert sent[0].text.startswith("Refused:") and "another session" in sent[0].text
    assert h.app.approvals.load(approval_id).status is ApprovalStatus.PENDING
    assert not (h.workdir / DEMO).exists()


def test_unknown_approval_id_is_refused(make: Any) -> None:
    h = make()
    sent = h.say("/approve appr_missing", sender=APPROVER)
    assert sent[0].text.startswith("Refused:")


def test_malformed_command_replies_with_usage(make: Any) -> None:
    h = make()
    sent = h.say("/approve", sender=APPROVER)
    assert sent[0].kind == "reply" and "usage: /approve <approval-id>" in sent[0].text
    assert h.provider.requests == []


def test_redelivered_event_is_processed_once(make: Any) -> None:
    h = make()
    event = message_event(PROMPT, event_id="ev_same")
    first = h.adapter.handle_event(event)
    assert first is not None
    first.result(timeout=10)
    assert h.adapter.handle_event(event) is None
    assert len(h.provider.requests) == 1 and len(h.app.approvals.list()) == 1


def test_final_answer_is_replied_to_the_message(make: Any) -> None:
    h = make("hello back", pause=False)
    sent = h.say("@_user_1 hello", message_id="om_hi")
    assert sent == [SentMessage("reply", "om_hi", "hello back\n[stop_reason: final, steps: 1]")]
    assert h.provider.requests[0].messages[-1].content == "hello"


def test_resumed_run_that_pauses_again_posts_the_new_request(make: Any) -> None:
    h = make(tool_call("write", path="second-secret.txt", content="x"))
    first = h.pause()
    sent = h.say(f"/approve {first}", sender=APPROVER)
    assert [m.kind for m in sent] == ["reply", "send"]
    second = h.app.approvals.list()[-1].approval_id
    assert second != first and f"waiting for approval {second}" in sent[0].text
    assert f"/approve {second}" in sent[1].text


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(message_event("", message_type="image"), id="image-message"),
        pytest.param({"schema": "2.0", "header": {"event_type": "im.chat.updated_v1"}}, id="other"),
        pytest.param({"uuid": "x", "event": {"type": "message"}}, id="schema-1"),
        pytest.param({"schema": "2.0"}, id="no-header"),
    ],
)
def test_events_without_work_are_ignored(make: Any, event: dict[str, Any]) -> None:
    h = make()
    assert h.adapter.handle_event(event) is None
    assert h.messenger.messages == []


def test_messages_from_apps_are_ignored(make: Any) -> None:
    h = make()
    event = message_event(PROMPT)
    event["event"]["sender"]["sender_type"] = "app"
    assert h.adapter.handle_event(event) is None


def test_mention_alone_gets_a_hint(make: Any) -> None:
    h = make()
    sent = h.say("@_user_1 ")
    assert "/approve <id>" in sent[0].text and h.provider.requests == []


def test_failed_delivery_is_logged_not_raised(make: Any, caplog: pytest.LogCaptureFixture) -> None:
    h = make()
    h.messenger.fail = FeishuError("Feishu is down")
    with caplog.at_level(logging.ERROR, logger="harness.feishu"):
        h.say("/approve", sender=APPROVER)
    assert any("failed" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize(
    ("mutate", "parsed"),
    [
        pytest.param(lambda e: None, True, id="complete"),
        pytest.param(lambda e: e["header"].pop("event_id"), False, id="no-event-id"),
        pytest.param(lambda e: e["event"]["message"].pop("chat_id"), False, id="no-chat"),
        pytest.param(lambda e: e["event"].pop("sender"), False, id="no-sender"),
        pytest.param(
            lambda e: e["event"]["message"].update(content="{not json"), True, id="bad-content"
        ),
    ],
)
def test_parse_message_event(mutate: Any, parsed: bool) -> None:
    event = message_event("hi", chat_id="oc_9", sender="ou_9")
    mutate(event)
    message = parse_message_event(event)
    assert (message is not None) is parsed
    if message is not None:
        assert (message.chat_id, message.sender_open_id, message.chat_type) == (
            "oc_9",
            "ou_9",
            "group",
        )


def test_dedup_forgets_after_the_ttl_and_stays_bounded() -> None:
    now = [0.0]
    seen = EventDeduplicator(ttl_seconds=10, max_size=3, clock=lambda: now[0])
    assert seen.first_time("a") and not seen.first_time("a")
    now[0] = 11.0
    assert seen.first_time("a")
    for name in "bcde":
        assert seen.first_time(name)
    assert len(seen) == 3 and seen.first_time("a")


@pytest.mark.parametrize(("ttl", "size"), [(0, 1), (1, 0)], ids=["zero-ttl", "zero-size"])
def test_dedup_refuses_useless_bounds(ttl: float, size: int) -> None:
    with pytest.raises(ValueError, match="ttl_seconds"):
        EventDeduplicator(ttl_seconds=ttl, max_size=size)


def test_serial_runner_keeps_order_per_key_and_runs_keys_in_parallel() -> None:
    pool = ThreadPoolExecutor(2)
    runner = KeyedSerialRunner(pool)
    release = threading.Event()
    order: list[str] = []

    def first_of_a() -> None:
        release.wait(5)
        order.append("a1")

    try:
        blocked = runner.submit("chat-a", first_of_a)
        after = runner.submit("chat-a", lambda: order.append("a2"))
        other = runner.submit("chat-b", lambda: order.append("b1"))
        other.result(timeout=5)  # chat-b is not stuck behind chat-a
        assert order == ["b1"] and not after.done()
        release.set()
        after.result(timeout=5)
        assert blocked.done() and order == ["b1", "a1", "a2"]
    finally:
        release.set()
        pool.shutdown()


def test_serial_runner_reports_errors_and_keeps_draining() -> None:
    pool = ThreadPoolExecutor(1)
    runner = KeyedSerialRunner(pool)

    def boom() -> None:
        raise ValueError("boom")

    failed = runner.submit("k", boom)
    fine = runner.submit("k", lambda: None)
    assert fine.result(timeout=5) is None
    assert isinstance(failed.exception(timeout=5), ValueError)
    pool.shutdown()
    with pytest.raises(RuntimeError):
        runner.submit("k", lambda: None)


def test_closed_adapter_drops_new_events(make: Any) -> None:
    h = make()
    h.adapter.close()
    assert h.adapter.handle_event(message_event(PROMPT)) is None
