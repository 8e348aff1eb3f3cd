"""Approval records and run checkpoints on disk, with an atomic status transition.

Layout: ``state_dir/sessions/<key>/approvals/<approval_id>.json`` and
``state_dir/sessions/<key>/checkpoints/<checkpoint_id>.json``. Writes go to a
temp file and a rename. Status changes happen under an exclusive ``flock`` on a
per-approval lock file, so two threads or two processes resuming the same
approval cannot both win.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.approval.records import (
    APPROVAL_SCHEMA_VERSION,
    CHECKPOINT_SCHEMA_VERSION,
    ApprovalRecord,
    RunCheckpoint,
)
from harness.core.errors import ApprovalError
from harness.documents import read_document
from harness.files import atomic_write_text

__all__ = ["APPROVAL_ID_PATTERN", "ApprovalStore", "CheckpointStore", "new_id"]

APPROVAL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def _check_id(value: str, what: str) -> None:
    if not APPROVAL_ID_PATTERN.match(value):
        raise ApprovalError(
            f"{what} {value!r} is malformed: ids use only letters, digits, '_' and '-'"
        )


class ApprovalStore:
    """Reads and writes ``ApprovalRecord`` files."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def path_for(self, session_key: str, approval_id: str) -> Path:
        return self.state_dir / "sessions" / session_key / "approvals" / f"{approval_id}.json"

    def save(self, record: ApprovalRecord) -> Path:
        path = self.path_for(record.session_key, record.approval_id)
        atomic_write_text(path, record.model_dump_json(indent=2))
        return path

    def locate(self, approval_id: str) -> Path:
        """The file of ``approval_id`` in whichever session holds it."""
        _check_id(approval_id, "approval id")
        sessions = self.state_dir / "sessions"
        matches = sorted(sessions.glob(f"*/approvals/{approval_id}.json"))
        if not matches:
            raise ApprovalError(
                f"unknown approval id {approval_id!r}: no such approval under {sessions}; "
                "list pending ones with `harness approvals`"
            )
        return matches[0]

    def load_path(self, path: Path) -> ApprovalRecord:
        return read_document(
            path,
            ApprovalRecord,
            APPROVAL_SCHEMA_VERSION,
            what="approval file",
            error=ApprovalError,
            consequence="nothing was executed; start the task again to get a new approval",
        )

    def load(self, approval_id: str) -> ApprovalRecord:
        return self.load_path(self.locate(approval_id))

    def list(self, session_key: str | None = None) -> list[ApprovalRecord]:
        pattern = f"{session_key or '*'}/approvals/*.json"
        records = []
        for path in sorted((self.state_dir / "sessions").glob(pattern)):
            try:
                records.append(self.load_path(path))
            except ApprovalError:
                continue
        return sorted(records, key=lambda r: r.created_at)

    @contextmanager
    def locked(self, record: ApprovalRecord) -> Iterator[None]:
        """Hold the approval's exclusive lock (threads and processes alike)."""
        path = self.path_for(record.session_key, record.approval_id).with_suffix(".lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


class CheckpointStore:
    """Reads and writes ``RunCheckpoint`` files."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def path_for(self, session_key: str, checkpoint_id: str) -> Path:
        return self.state_dir / "sessions" / session_key / "checkpoints" / f"{checkpoint_id}.json"

    def save(self, checkpoint: RunCheckpoint) -> Path:
        path = self.path_for(checkpoint.session_key, checkpoint.checkpoint_id)
        atomic_write_text(path, checkpoint.model_dump_json(indent=2))
        return path

    def load(self, session_key: str, checkpoint_id: str) -> RunCheckpoint:
        _check_id(checkpoint_id, "checkpoint id")
        path = self.path_for(session_key, checkpoint_id)
        if not path.exists():
            raise ApprovalError(
                f"checkpoint {checkpoint_id!r} is missing ({path}); the run cannot be resumed "
                "and nothing was executed"
            )
        return read_document(
            path,
            RunCheckpoint,
            CHECKPOINT_SCHEMA_VERSION,
            what="checkpoint",
            error=ApprovalError,
            consequence="the run cannot be resumed and nothing was executed",
        )
