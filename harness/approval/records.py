"""Persisted approval data: the frozen run (checkpoint) and the approval record.

Both are versioned pydantic documents, validated on read and HMAC-signed over
their whole content (see ``signing``); an unknown version, an extra field, a
corrupt or changed file is refused with a clear error rather than guessed at.
Version 2 added the signatures; version 1 files are refused. Version 3 of the
approval record names its held layer as one typed ``HeldLayer`` (``held``)
instead of two strings; version 2 records are still read, and upgraded
(``records_v2``).
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from harness.approval.held_layer import HeldLayer
from harness.approval.preview import ApprovalPreview
from harness.core.messages import Message, ToolCall, Usage

__all__ = [
    "APPROVAL_SCHEMA_VERSION",
    "CHECKPOINT_SCHEMA_VERSION",
    "DECIDED_BY_PATTERN",
    "ApprovalRecord",
    "ApprovalStatus",
    "CheckpointDraft",
    "RunCheckpoint",
    "tool_call_hash",
    "utc_now",
]

CHECKPOINT_SCHEMA_VERSION = 2
APPROVAL_SCHEMA_VERSION = 3

DECIDED_BY_PATTERN = r"^(cli|api|feishu:[A-Za-z0-9_-]{1,128})$"
"""Who decided: the CLI, the Python API, or a Feishu user by open_id."""


def utc_now() -> datetime:
    return datetime.now(UTC)


def tool_call_hash(call: ToolCall) -> str:
    """A digest of what will run: tool name and canonical arguments (not the id)."""
    canonical = json.dumps(
        {"name": call.name, "arguments": call.arguments},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
        default=str,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CheckpointDraft(BaseModel):
    """Everything needed to continue a run after one of its tool calls, minus ids.

    The engine offers a draft with each tool call it executes; the approval
    middleware turns it into a ``RunCheckpoint`` when it pauses the call.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    session_key: str
    mode: str
    prompt: str
    step: int
    max_steps: int
    phase: str
    tool_policy: str
    provider: str
    model: str | None = None
    visible_tools: tuple[str, ...]
    messages: tuple[Message, ...]
    completed_observations: tuple[Message, ...] = ()
    pending_tool_calls: tuple[ToolCall, ...]
    pending_index: int
    first_index: int = 0
    plan: str | None = None
    usage: Usage = Field(default_factory=Usage)
    tool_calls_so_far: int = 0
    trace_id: str | None = None
    run_id: str | None = None

    @property
    def pending_call(self) -> ToolCall:
        return self.pending_tool_calls[self.pending_index - self.first_index]


class RunCheckpoint(CheckpointDraft):
    """A run frozen at a tool call awaiting approval."""

    schema_version: int = CHECKPOINT_SCHEMA_VERSION
    checkpoint_id: str
    approval_id: str
    created_at: datetime = Field(default_factory=utc_now)
    removed_lines: int = 0
    """The run's removed-or-replaced line tally at the pause (effect policy)."""
    signature: str = ""


class ApprovalStatus(StrEnum):
    PENDING = "pending"
    RESUMING = "resuming"
    CONSUMED = "consumed"
    REJECTED = "rejected"
    EXPIRED = "expired"


class ApprovalRecord(BaseModel):
    """A request for a human decision on one tool call.

    ``preview`` is what the approver is shown; ``checkpoint_signature`` ties the
    record to the one checkpoint written with it; ``signature`` covers all the rest.

    A bash call that already ran over an overlay is held, not re-run: ``held``
    names the layer with its changes and the digest of what the approver was
    shown (the apply checks the layer against it), and ``output`` is the
    command's output the model gets.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    schema_version: int = APPROVAL_SCHEMA_VERSION
    approval_id: str
    session_key: str
    session_display_name: str | None = None
    workdir: str | None = None
    tool_call_id: str
    tool_name: str
    arguments: dict[str, Any]
    tool_call_hash: str
    risk_reasons: tuple[str, ...]
    checkpoint_id: str
    status: ApprovalStatus = ApprovalStatus.PENDING
    created_at: datetime = Field(default_factory=utc_now)
    expires_at: datetime
    decided_at: datetime | None = None
    decision: str | None = None
    decision_reason: str | None = None
    decided_by: str | None = Field(default=None, pattern=DECIDED_BY_PATTERN)
    preview: ApprovalPreview | None = None
    held: HeldLayer | None = None
    output: str | None = None
    checkpoint_signature: str = ""
    signature: str = ""

    def is_expired(self, now: datetime | None = None) -> bool:
        return (now or utc_now()) >= self.expires_at
