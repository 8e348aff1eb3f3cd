"""Session memory: an append-only JSONL file per session."""

from __future__ import annotations

import json
import logging
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

__all__ = ["MemoryEntry", "SessionMemoryStore"]

logger = logging.getLogger("harness.session")


def _now() -> str:
    return datetime.now(UTC).isoformat()


class MemoryEntry(BaseModel):
    """One remembered turn: what the user asked or what the agent finally said."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    role: str
    content: str
    kind: str = "message"
    created_at: str = Field(default_factory=_now)
    metadata: dict[str, Any] = Field(default_factory=dict)


class SessionMemoryStore:
    """Appends entries to ``state_dir/sessions/<key>/memory.jsonl``.

    Appends are whole lines written with one ``write`` under a lock, so a crash
    can at worst leave a truncated last line; ``load`` skips such a line (and
    any other corrupt line) with a warning instead of losing the whole history.
    """

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self._lock = threading.Lock()

    def path_for(self, session_key: str) -> Path:
        return self.state_dir / "sessions" / session_key / "memory.jsonl"

    def append(self, session_key: str, *entries: MemoryEntry) -> None:
        if not entries:
            return
        path = self.path_for(session_key)
        payload = "".join(entry.model_dump_json() + "\n" for entry in entries)
        with self._lock:
            path.parent.mkdir(parents=True, exist_ok=True)
            needs_newline = path.exists() and _ends_without_newline(path)
            with path.open("a", encoding="utf-8") as handle:
                handle.write(("\n" if needs_newline else "") + payload)

    def load(self, session_key: str, *, limit: int | None = None) -> list[MemoryEntry]:
        path = self.path_for(session_key)
        if not path.exists():
            return []
        entries: list[MemoryEntry] = []
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                entries.append(MemoryEntry.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError):
                logger.warning("skipping unreadable line %d of %s", number, path)
        return entries[-limit:] if limit else entries


def _ends_without_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return False
        handle.seek(-1, 2)
        return handle.read(1) != b"\n"
