"""The seam through which a channel (CLI, Feishu, ...) hears of a pending approval."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from harness.approval.records import ApprovalRecord

__all__ = ["ApprovalRequester", "RecordingApprovalRequester", "requester_of"]


@runtime_checkable
class ApprovalRequester(Protocol):
    """Tells a human that ``record`` waits for a decision.

    Contract: called after the record and checkpoint are saved; it must not
    decide anything itself. Failures are logged by the caller and never undo
    the pause (the approval stays decidable from the CLI).
    """

    def request_approval(self, record: ApprovalRecord) -> None: ...


class RecordingApprovalRequester:
    """A strict fake that keeps every request it was given."""

    def __init__(self) -> None:
        self.requests: list[ApprovalRecord] = []

    def request_approval(self, record: ApprovalRecord) -> None:
        self.requests.append(record)


def requester_of(channel: Any) -> ApprovalRequester | None:
    """The channel's requester: the channel itself or its ``approval_requester``."""
    if channel is None:
        return None
    if isinstance(channel, ApprovalRequester):
        return channel
    inner = getattr(channel, "approval_requester", None)
    return inner if isinstance(inner, ApprovalRequester) else None
