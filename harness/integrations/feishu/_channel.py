"""FeishuChannel: one Feishu chat as a run's channel and approval requester."""

from __future__ import annotations

import threading

from harness.approval.preview import escape_line, render_preview
from harness.approval.records import ApprovalRecord
from harness.engine import RunResult, StopReason
from harness.integrations.feishu._client import FeishuMessenger

__all__ = ["MAX_MESSAGE_CHARS", "FeishuChannel", "format_approval_message", "format_run_result"]

# Feishu caps a text message far above this; long agent answers are cut so a
# reply never fails (and the chat stays readable). The trace keeps the whole text.
MAX_MESSAGE_CHARS = 8000


def format_approval_message(record: ApprovalRecord, *, max_preview_chars: int = 30_000) -> str:
    """The text that asks a human to decide ``record``: what would run, and the commands.

    The preview follows the header (the whole command, the content or the
    diff, and the later calls of the batch). Feishu refuses text messages over
    about 150 KB, so a preview over ``max_preview_chars`` is cut, saying how
    much was left out and where to read all of it.
    """
    # The same escaping as `harness approvals`: a newline in a name cannot forge a line.
    reasons = "; ".join(escape_line(reason) for reason in record.risk_reasons) or "(none given)"
    preview = render_preview(record.preview, approval_id=record.approval_id)
    if len(preview) > max_preview_chars:
        left = len(preview) - max_preview_chars
        preview = (
            preview[:max_preview_chars]
            + f"\n[... {left} more characters of the preview left out here; read all of it "
            f"with `harness approvals show {record.approval_id} --full` before approving ...]"
            + _deletions(record, max_preview_chars // 4)
        )
    return "\n".join(
        [
            f"Approval required: {record.approval_id}",
            f"Session: {escape_line(record.session_display_name or record.session_key)}",
            f"Workdir: {escape_line(record.workdir or '(unknown)')}",
            f"Tool: {escape_line(record.tool_name)}",
            f"Risk: {reasons}",
            f"Expires: {record.expires_at.isoformat(timespec='seconds')}",
            "What would run:",
            preview,
            f"Approve: /approve {record.approval_id}",
            f"Reject: /reject {record.approval_id} <reason>",
        ]
    )


def _deletions(record: ApprovalRecord, max_chars: int) -> str:
    """The held deletions, when the cut may have hidden them: a loss is never left unsaid."""
    changeset = record.preview.changeset if record.preview else None
    if changeset is None:
        return ""
    # The listing puts deletions first and quotes every name (one line each).
    deleted = [line for line in changeset.files.split("\n") if line.startswith("deleted ")]
    if not deleted:
        return "\nThe held changes delete nothing."
    lines = [f"\nThe held changes delete {len(deleted)} path(s):"]
    used = 0
    for number, line in enumerate(deleted):
        used += len(line) + 1
        if used > max_chars:
            lines.append(f"[... and {len(deleted) - number} more deletion(s); see --full ...]")
            break
        lines.append(line)
    return "\n".join(lines)


def format_run_result(result: RunResult) -> str:
    """The chat reply for a finished (or again paused) run: answer and stop reason."""
    if result.stop_reason is StopReason.APPROVAL_REQUIRED and result.approval_id:
        body = f"Paused: waiting for approval {result.approval_id} (see the approval request)."
    else:
        body = result.text.strip() or "(no answer)"
    footer = f"[stop_reason: {result.stop_reason.value}, steps: {result.steps}]"
    if result.error:
        footer += f"\nerror: {result.error}"
    return f"{body}\n{footer}"


class FeishuChannel:
    """A run's link to one Feishu chat; also its ``ApprovalRequester``.

    Passed as ``channel=`` to ``Application.run``: when the approval middleware
    pauses a call it calls ``request_approval``, which posts one message
    with the id and the commands to decide it. The channel never decides
    anything itself.

    Args:
        messenger: how messages reach Feishu.
        chat_id: the chat this channel speaks in.
        reply_to: the message that started the work; replies thread under it.
    """

    def __init__(
        self, messenger: FeishuMessenger, chat_id: str, *, reply_to: str | None = None
    ) -> None:
        self.messenger = messenger
        self.chat_id = chat_id
        self.reply_to = reply_to
        self._announced: set[str] = set()
        self._lock = threading.Lock()

    @property
    def announced_approvals(self) -> frozenset[str]:
        """Ids of the approvals this channel has asked the chat to decide."""
        with self._lock:
            return frozenset(self._announced)

    def send_progress(self, text: str) -> None:
        """Post ``text`` as a new message in the chat."""
        self.messenger.send_text(self.chat_id, _fit(text))

    def reply(self, text: str) -> None:
        """Answer the message that started the work (or post, when there is none)."""
        if self.reply_to is None:
            self.send_progress(text)
        else:
            self.messenger.reply_text(self.reply_to, _fit(text))

    def request_approval(self, record: ApprovalRecord) -> None:
        """Ask the chat to decide ``record`` (``ApprovalRequester``)."""
        self.messenger.send_text(self.chat_id, format_approval_message(record))
        with self._lock:
            self._announced.add(record.approval_id)


def _fit(text: str) -> str:
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 20] + "\n... (truncated)"
