"""FeishuEventAdapter: received chat messages become agent runs or approval decisions.

The one handler behind both transports (HTTP webhook and long connection):
``handle_event`` only parses, de-duplicates and hands the work to a thread
pool, so it returns at once and never blocks an event loop. The worker then
calls ``Application.run`` or ``Application.resume_approval`` and replies in
the chat. Feishu stays an adapter: the model never sees it as a tool.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from harness.core.errors import HarnessError
from harness.engine import RunMode, RunResult, StopReason
from harness.integrations.feishu._channel import FeishuChannel, format_run_result
from harness.integrations.feishu._client import FeishuMessenger
from harness.integrations.feishu._commands import (
    ApprovalCommand,
    ApprovalCommandError,
    parse_approval_command,
    strip_mentions,
)
from harness.integrations.feishu._dedup import SEEN_EVENTS_FILE, EventDeduplicator
from harness.integrations.feishu._incoming import (
    IncomingMessage,
    parse_message_event,
    session_for_chat,
)
from harness.integrations.feishu._serial import KeyedSerialRunner

if TYPE_CHECKING:
    from harness.app import Application

__all__ = ["FeishuEventAdapter"]

# Never log message text or secrets here: ids and outcomes only.
logger = logging.getLogger("harness.feishu")

_HINT = "Send a task for the agent, or /approve <id> or /reject <id> [reason]."
_NOT_APPROVER = "Refused: you are not allowed to decide approvals (HARNESS_FEISHU_APPROVERS)."
_NO_APPROVERS = (
    "Refused: no Feishu approvers are configured (HARNESS_FEISHU_APPROVERS is empty); "
    "decide it on the server with `harness approve` / `harness reject`."
)
_FAILED = "Sorry, this request failed on the server; the operator can find it in the log."


class FeishuEventAdapter:
    """Routes ``im.message.receive_v1`` events to the application.

    Each chat is one session (``session_for_chat``) and its messages are
    handled in arrival order; different chats run in parallel. Anyone who can
    message the bot can start runs; high-risk tool calls still pause for
    approval, and only the open_ids in ``approvers`` may decide them. An empty
    ``approvers`` set refuses every ``/approve`` and ``/reject`` (fail closed).

    Args:
        app: the application that runs prompts and resumes approvals.
        messenger: how replies reach Feishu.
        approvers: open_ids allowed to approve or reject.
        executor: where the work runs; a private thread pool when omitted
            (shut down by ``close``).
        dedup: the memory of seen event ids (Feishu redelivers); by default
            persisted in ``<state dir>/feishu/seen-events.json``, so a request
            replayed after a restart is still ignored.
        mode: the run mode for chat prompts.
        max_steps: step limit per run; the settings' default when None.
    """

    def __init__(
        self,
        app: Application,
        messenger: FeishuMessenger,
        *,
        approvers: frozenset[str],
        executor: Executor | None = None,
        dedup: EventDeduplicator | None = None,
        mode: RunMode | str = RunMode.ACT,
        max_steps: int | None = None,
    ) -> None:
        self.app = app
        self.messenger = messenger
        self.approvers = frozenset(approvers)
        self.mode = mode
        self.max_steps = max_steps
        self.dedup = dedup or EventDeduplicator(path=app.state_dir / SEEN_EVENTS_FILE)
        self._owns_executor = executor is None
        self._executor = executor or ThreadPoolExecutor(4, thread_name_prefix="harness-feishu")
        self._serial = KeyedSerialRunner(self._executor)

    def handle_event(self, payload: Mapping[str, Any]) -> Future[None] | None:
        """Accept one decoded, verified event; return the scheduled work or None.

        None means nothing to do: not a message event, a repeated event id,
        a non-text message, or a message sent by an app (including this bot).
        """
        message = parse_message_event(payload)
        if message is None:
            return None
        if not self.dedup.first_time(message.event_id):
            logger.info("ignored redelivered event %s", message.event_id)
            return None
        if message.text is None or message.sender_type == "app":
            logger.debug("ignored %s message %s", message.message_type, message.message_id)
            return None
        try:
            return self._serial.submit(message.chat_id, lambda: self.process(message))
        except RuntimeError:  # closing: Feishu will redeliver to the next server
            logger.warning("dropped event %s: the adapter is closed", message.event_id)
            return None

    def process(self, message: IncomingMessage) -> None:
        """Do the work for ``message`` and reply; runs in a worker thread."""
        channel = FeishuChannel(self.messenger, message.chat_id, reply_to=message.message_id)
        try:
            self._dispatch(message, channel)
        except Exception:  # a worker has nobody else to report to
            logger.exception("event %s in chat %s failed", message.event_id, message.chat_id)
            try:
                channel.reply(_FAILED)
            except Exception:
                logger.exception("could not tell chat %s about the failure", message.chat_id)

    def close(self, *, wait: bool = True) -> None:
        """Stop the private thread pool (waiting for running work when ``wait``)."""
        if self._owns_executor:
            self._executor.shutdown(wait=wait, cancel_futures=not wait)

    def _dispatch(self, message: IncomingMessage, channel: FeishuChannel) -> None:
        text = message.text or ""
        try:
            command = parse_approval_command(text)
        except ApprovalCommandError as exc:
            channel.reply(str(exc))
            return
        if command is not None:
            self._decide(message, command, channel)
            return
        prompt = strip_mentions(text)
        if not prompt:
            channel.reply(_HINT)
            return
        session = session_for_chat(message.chat_id, message.chat_type)
        result = self.app.run(
            prompt, mode=self.mode, session=session, max_steps=self.max_steps, channel=channel
        )
        logger.info("run in chat %s stopped: %s", message.chat_id, result.stop_reason.value)
        # When the run paused, the approval request is the answer; no second message.
        if not self._announce_pause(result, channel):
            channel.reply(format_run_result(result))

    def _decide(
        self, message: IncomingMessage, command: ApprovalCommand, channel: FeishuChannel
    ) -> None:
        if message.sender_open_id not in self.approvers:
            logger.warning(
                "refused /%s %s from %s in chat %s: not an approver",
                command.action,
                command.approval_id,
                message.sender_open_id,
                message.chat_id,
            )
            channel.reply(_NOT_APPROVER if self.approvers else _NO_APPROVERS)
            return
        session = session_for_chat(message.chat_id, message.chat_type)
        try:
            result = self.app.resume_approval(
                command.approval_id,
                command.action,
                session=session,
                reason=command.reason,
                decided_by=f"feishu:{message.sender_open_id}",
            )
        except HarnessError as exc:  # fail closed: nothing ran; say why
            logger.info(
                "refused /%s %s in chat %s: %s",
                command.action,
                command.approval_id,
                message.chat_id,
                type(exc).__name__,
            )
            channel.reply(f"Refused: {exc}")
            return
        verb = "Approved" if command.action == "approve" else "Rejected"
        logger.info("%s %s by %s", verb, command.approval_id, message.sender_open_id)
        channel.reply(f"{verb} {command.approval_id}.\n{format_run_result(result)}")
        self._announce_pause(result, channel)

    def _announce_pause(self, result: RunResult, channel: FeishuChannel) -> bool:
        """Make sure a paused run's approval was posted; True when the run paused."""
        approval_id = result.approval_id
        if result.stop_reason is not StopReason.APPROVAL_REQUIRED or not approval_id:
            return False
        # A resumed run has no channel, and a failed notification is only logged
        # by the middleware: post the request here so the chat can still decide.
        if approval_id not in channel.announced_approvals:
            channel.request_approval(self.app.approvals.load(approval_id))
        return True
