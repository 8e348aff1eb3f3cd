"""The /approve and /reject grammar, the approval message, and the session per chat."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import pytest

from harness.approval.records import ApprovalRecord
from harness.core import ApprovalError
from harness.engine._run_types import RunResult, StopReason
from harness.integrations.feishu import (
    ApprovalCommand,
    ApprovalCommandError,
    format_approval_message,
    format_run_result,
    parse_approval_command,
    session_for_chat,
    strip_mentions,
)

APPROVE = ApprovalCommand("approve", "appr_1a2b")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("/approve appr_1a2b", APPROVE, id="approve"),
        pytest.param("  /approve appr_1a2b \n", APPROVE, id="approve-surrounding-space"),
        pytest.param("/APPROVE appr_1a2b", APPROVE, id="approve-upper-case-word"),
        pytest.param("/Approve appr_1a2b", APPROVE, id="approve-title-case-word"),
        pytest.param("@_user_1 /approve appr_1a2b", APPROVE, id="approve-after-mention"),
        pytest.param("@_user_1  @_user_2 /approve appr_1a2b", APPROVE, id="two-mentions"),
        pytest.param("/approve\tappr_1a2b", APPROVE, id="approve-tab-separated"),
        pytest.param(
            "/approve A-b_9", ApprovalCommand("approve", "A-b_9"), id="approve-id-charset"
        ),
        pytest.param("/reject appr_1a2b", ApprovalCommand("reject", "appr_1a2b"), id="reject"),
        pytest.param(
            "/reject appr_1a2b not today",
            ApprovalCommand("reject", "appr_1a2b", "not today"),
            id="reject-with-reason",
        ),
        pytest.param(
            "/REJECT appr_1a2b   too risky  ",
            ApprovalCommand("reject", "appr_1a2b", "too risky"),
            id="reject-reason-trimmed",
        ),
        pytest.param(
            "@_user_1 /reject appr_1a2b 测试拒绝",
            ApprovalCommand("reject", "appr_1a2b", "测试拒绝"),
            id="reject-after-mention-unicode-reason",
        ),
        pytest.param(
            "/reject appr_1a2b line one\nline two",
            ApprovalCommand("reject", "appr_1a2b", "line one\nline two"),
            id="reject-multiline-reason",
        ),
        pytest.param("please create the file", None, id="plain-prompt"),
        pytest.param("", None, id="empty"),
        pytest.param("   ", None, id="blank"),
        pytest.param("approve appr_1a2b", None, id="no-slash"),
        pytest.param("/approved appr_1a2b", None, id="longer-word"),
        pytest.param("/approveappr_1a2b", None, id="no-space-after-word"),
        pytest.param("/help", None, id="other-slash-command"),
        pytest.param("I will /approve appr_1a2b later", None, id="command-mid-sentence"),
        pytest.param("@_user_1 hello", None, id="mention-then-prompt"),
    ],
)
def test_parse_approval_command(text: str, expected: ApprovalCommand | None) -> None:
    assert parse_approval_command(text) == expected


@pytest.mark.parametrize(
    ("text", "usage"),
    [
        pytest.param("/approve", "usage: /approve <approval-id>", id="approve-without-id"),
        pytest.param("/approve   ", "usage: /approve <approval-id>", id="approve-blank-id"),
        pytest.param("@_user_1 /approve", "usage: /approve <approval-id>", id="mention-no-id"),
        pytest.param("/approve appr/1", "usage: /approve <approval-id>", id="approve-slash-in-id"),
        pytest.param("/approve ../etc", "usage: /approve <approval-id>", id="approve-path-id"),
        pytest.param("/approve appr_1 ok", "usage: /approve <approval-id>", id="approve-extra"),
        pytest.param("/approve " + "a" * 129, "usage: /approve <approval-id>", id="id-too-long"),
        pytest.param("/reject", "usage: /reject <approval-id> [reason]", id="reject-without-id"),
        pytest.param(
            "/reject <id> no", "usage: /reject <approval-id> [reason]", id="reject-placeholder"
        ),
    ],
)
def test_malformed_command_raises_with_usage(text: str, usage: str) -> None:
    with pytest.raises(ApprovalCommandError) as caught:
        parse_approval_command(text)
    assert caught.value.usage == usage
    assert usage in str(caught.value)
    assert isinstance(caught.value, ApprovalError)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("@_user_1 hi there", "hi there", id="one-mention"),
        pytest.param("  hi  ", "hi", id="whitespace"),
        pytest.param("@_user_1", "", id="mention-alone"),
        pytest.param("@_all please", "please", id="mention-all"),
        pytest.param("@home is nice", "@home is nice", id="not-a-placeholder"),
        pytest.param("mail me @_user_1 later", "mail me @_user_1 later", id="inner-mention"),
    ],
)
def test_strip_mentions(text: str, expected: str) -> None:
    assert strip_mentions(text) == expected


def test_approval_message_has_everything_to_decide() -> None:
    record = ApprovalRecord(
        approval_id="appr_42",
        session_key="feishu-oc_1",
        session_display_name="Feishu group chat oc_1",
        workdir="/srv/work",
        tool_call_id="call_1",
        tool_name="write",
        arguments={"path": "approval-demo-key.txt", "content": "x"},
        tool_call_hash="0" * 64,
        risk_reasons=("writes a sensitive file", "path contains 'key'"),
        checkpoint_id="ckpt_1",
        expires_at=datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC),
    )
    text = format_approval_message(record)
    for part in (
        "appr_42",
        "Feishu group chat oc_1",
        "/srv/work",
        "Tool: write",
        "writes a sensitive file; path contains 'key'",
        "2030-01-02T03:04:05+00:00",
        "/approve appr_42",
        "/reject appr_42 <reason>",
    ):
        assert part in text


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        pytest.param(
            RunResult(text="done", stop_reason=StopReason.FINAL, steps=2),
            "done\n[stop_reason: final, steps: 2]",
            id="final",
        ),
        pytest.param(
            RunResult(text="", stop_reason=StopReason.MAX_STEPS, steps=8),
            "(no answer)\n[stop_reason: max_steps, steps: 8]",
            id="empty-answer",
        ),
        pytest.param(
            RunResult(
                text="Paused", stop_reason=StopReason.APPROVAL_REQUIRED, steps=1, approval_id="a1"
            ),
            "Paused: waiting for approval a1 (see the approval request).\n"
            "[stop_reason: approval_required, steps: 1]",
            id="paused",
        ),
    ],
)
def test_format_run_result(result: RunResult, expected: str) -> None:
    assert format_run_result(result) == expected


def _digest(chat_id: str) -> str:
    return hashlib.sha256(chat_id.encode()).hexdigest()[:12]


@pytest.mark.parametrize(
    ("chat_id", "key"),
    [
        pytest.param("oc_abc123", "feishu-oc_abc123", id="plain"),
        pytest.param("oc/../x y", "feishu-oc--.-x-y-" + _digest("oc/../x y"), id="unsafe"),
        pytest.param("a...b", "feishu-a--.b-" + _digest("a...b"), id="dot-runs"),
        pytest.param("x" * 300, "feishu-" + "x" * 230 + "-" + _digest("x" * 300), id="long"),
    ],
)
def test_session_for_chat_is_path_safe(chat_id: str, key: str) -> None:
    ref = session_for_chat(chat_id, "group")
    assert ref.key == key
    assert (ref.source, ref.external_id) == ("feishu", chat_id)
    assert ref.display_name == f"Feishu group chat {chat_id}"


def test_chats_that_sanitise_alike_get_different_sessions() -> None:
    assert session_for_chat("oc/a").key != session_for_chat("oc-a").key
