"""Approval records and run checkpoints on disk, with an atomic status transition.

Layout: ``state_dir/sessions/<key>/approvals/<approval_id>.json`` and
``state_dir/sessions/<key>/checkpoints/<checkpoint_id>.json``. Every file is
signed by harness when written and verified when read (``signing``), and is
valid only at its own path: a record or checkpoint copied into another
session's folder, or renamed, is refused. Writes go to a temp file and a
rename. Status changes happen under an exclusive ``flock`` on a per-approval
lock file, so two threads or two processes resuming the same approval cannot
both win.
"""

from __future__ import annotations

import builtins
import fcntl
import json
import os
import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from harness.approval._records_v2 import APPROVAL_V2, ApprovalRecordV2, upgrade_v2
from harness.approval._signing import ApprovalSigner, read_signed_document
from harness.approval.records import (
    APPROVAL_SCHEMA_VERSION,
    CHECKPOINT_SCHEMA_VERSION,
    ApprovalRecord,
    RunCheckpoint,
)
from harness.core.errors import ApprovalError
from harness.files import atomic_write_text, make_private_dirs
from harness.session import SESSION_KEY_PATTERN
from harness.settings import env_value

__all__ = ["APPROVAL_ID_PATTERN", "ApprovalStore", "CheckpointStore", "new_id"]

APPROVAL_ID_PATTERN = re.compile(r"^[A-Za-z0-9_-]{1,80}$")


def _schema_version(path: Path) -> object:
    """The file's ``schema_version``, or None; reading it properly is left to the reader."""
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        return None
    return data.get("schema_version") if isinstance(data, dict) else None


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def _check_id(value: str, what: str) -> None:
    if not APPROVAL_ID_PATTERN.match(value):
        raise ApprovalError(
            f"{what} {value!r} is malformed: ids use only letters, digits, '_' and '-'"
        )


def _check_session(key: str) -> None:
    if not SESSION_KEY_PATTERN.match(key):
        raise ApprovalError(f"session key {key!r} is malformed")


def _default_signer(state_dir: Path) -> ApprovalSigner:
    from harness.approval.keyfile import load_approval_key

    return ApprovalSigner(
        lambda: load_approval_key(env_value("approval_key"), workdir=None, state_dir=state_dir)
    )


def _check_place(path: Path, expected: Path, what: str) -> None:
    if path.absolute() != expected.absolute():
        raise ApprovalError(
            f"{what} {path} is not at its own path ({expected}): it was moved or copied "
            "from elsewhere and is void; nothing was executed"
        )


class ApprovalStore:
    """Reads and writes signed ``ApprovalRecord`` files.

    Args:
        state_dir: the harness state dir.
        signer: signs and verifies; by default keyed from ``HARNESS_APPROVAL_KEY``
            or the key file (loaded on first use).
    """

    def __init__(self, state_dir: Path, signer: ApprovalSigner | None = None) -> None:
        self.state_dir = state_dir
        self.signer = signer or _default_signer(state_dir)

    def path_for(self, session_key: str, approval_id: str) -> Path:
        return self.state_dir / "sessions" / session_key / "approvals" / f"{approval_id}.json"

    def save(self, record: ApprovalRecord) -> ApprovalRecord:
        """Sign ``record`` and write it at its path; returns the signed record."""
        _check_id(record.approval_id, "approval id")
        _check_session(record.session_key)
        signed = self.signer.sign(record)
        path = self.path_for(record.session_key, record.approval_id)
        atomic_write_text(path, signed.model_dump_json(indent=2), private=True)
        return signed

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
        """The verified record at ``path``; ``ApprovalError`` on any doubt."""
        consequence = "nothing was executed; run the prompt again to get a new approval"
        record: ApprovalRecord
        if _schema_version(path) == APPROVAL_V2:  # verified as written, then upgraded
            old = read_signed_document(
                path,
                ApprovalRecordV2,
                APPROVAL_V2,
                self.signer,
                what="approval file",
                consequence=consequence,
            )
            record = upgrade_v2(old, path)
        else:
            record = read_signed_document(
                path,
                ApprovalRecord,
                APPROVAL_SCHEMA_VERSION,
                self.signer,
                what="approval file",
                consequence=consequence,
            )
        _check_place(path, self.path_for(record.session_key, record.approval_id), "approval file")
        return record

    def load(self, approval_id: str) -> ApprovalRecord:
        """The verified record of ``approval_id``.

        A copy planted in another session's folder is void (it is not at its
        own path) and does not shadow the real record.
        """
        first = self.locate(approval_id)
        sessions = self.state_dir / "sessions"
        error: ApprovalError | None = None
        for path in sorted(sessions.glob(f"*/approvals/{approval_id}.json")) or [first]:
            try:
                return self.load_path(path)
            except ApprovalError as exc:
                error = error or exc
        assert error is not None
        raise error

    def list(self, session_key: str | None = None) -> list[ApprovalRecord]:
        pattern = f"{session_key or '*'}/approvals/*.json"
        records = []
        for path in sorted((self.state_dir / "sessions").glob(pattern)):
            try:
                records.append(self.load_path(path))
            except ApprovalError:
                continue
        return sorted(records, key=lambda r: r.created_at)

    def refused(self, session_key: str | None = None) -> builtins.list[tuple[Path, str]]:
        """Approval files that fail verification, with the reason (for listings)."""
        pattern = f"{session_key or '*'}/approvals/*.json"
        found = []
        for path in sorted((self.state_dir / "sessions").glob(pattern)):
            try:
                self.load_path(path)
            except ApprovalError as exc:
                found.append((path, str(exc)))
        return found

    @contextmanager
    def locked(self, record: ApprovalRecord) -> Iterator[None]:
        """Hold the approval's exclusive lock (threads and processes alike)."""
        path = self.path_for(record.session_key, record.approval_id).with_suffix(".lock")
        make_private_dirs(path.parent)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)


class CheckpointStore:
    """Reads and writes signed ``RunCheckpoint`` files."""

    def __init__(self, state_dir: Path, signer: ApprovalSigner | None = None) -> None:
        self.state_dir = state_dir
        self.signer = signer or _default_signer(state_dir)

    def path_for(self, session_key: str, checkpoint_id: str) -> Path:
        return self.state_dir / "sessions" / session_key / "checkpoints" / f"{checkpoint_id}.json"

    def save(self, checkpoint: RunCheckpoint) -> RunCheckpoint:
        """Sign ``checkpoint`` and write it at its path; returns the signed checkpoint."""
        _check_id(checkpoint.checkpoint_id, "checkpoint id")
        _check_session(checkpoint.session_key)
        signed = self.signer.sign(checkpoint)
        path = self.path_for(checkpoint.session_key, checkpoint.checkpoint_id)
        atomic_write_text(path, signed.model_dump_json(indent=2), private=True)
        return signed

    def load(self, session_key: str, checkpoint_id: str) -> RunCheckpoint:
        _check_id(checkpoint_id, "checkpoint id")
        path = self.path_for(session_key, checkpoint_id)
        if not path.exists():
            raise ApprovalError(
                f"checkpoint {checkpoint_id!r} is missing ({path}); the run cannot be resumed "
                "and nothing was executed"
            )
        checkpoint = read_signed_document(
            path,
            RunCheckpoint,
            CHECKPOINT_SCHEMA_VERSION,
            self.signer,
            what="checkpoint",
            consequence="the run cannot be resumed and nothing was executed",
        )
        expected = self.path_for(checkpoint.session_key, checkpoint.checkpoint_id)
        _check_place(path, expected, "checkpoint")
        return checkpoint
