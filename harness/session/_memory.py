"""Session memory: an append-only JSONL file per session, read from its end.

A long-lived chat session appends forever, but a run's context uses only the
last few entries (``ContextBuilder.memory_limit``, 20 by default). So ``load``
with a ``limit`` seeks backwards through the file in blocks and parses only
the lines it returns: on a 60,000-entry file (16.6 MB) that is 0.17 ms per run
instead of the ~0.5 s of reading and parsing all of it (``bench/memory_bench.py``,
both side by side).

A damaged line (a crash's truncated tail, a byte that is not UTF-8, a line
nested too deep, a value that is not a memory entry) never breaks the session:
it is skipped, and one warning per load names the file and the line numbers.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from harness.core.text import without_surrogates
from harness.files import PRIVATE_FILE_MODE, make_private_dirs
from harness.jsonload import JsonTooDeepError, load_json

__all__ = ["MemoryEntry", "SessionMemoryStore"]

logger = logging.getLogger("harness.session")

_BLOCK: Final = 64 * 1024
_SHOWN_LINES: Final = 10


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

    @field_validator("content", "metadata")
    @classmethod
    def _encodable(cls, value: Any) -> Any:
        return without_surrogates(value)


class SessionMemoryStore:
    """Appends entries to ``state_dir/sessions/<key>/memory.jsonl`` and reads them back.

    Appends are whole lines written with one ``write`` under a lock, so a crash
    can at worst leave a truncated last line; the next append starts a fresh
    line after it and ``load`` skips it with a warning.
    """

    def __init__(self, state_dir: Path, *, block_size: int = _BLOCK) -> None:
        self.state_dir = state_dir
        self.block_size = block_size  # how much ``load`` reads per seek backwards
        self._lock = threading.Lock()

    def path_for(self, session_key: str) -> Path:
        return self.state_dir / "sessions" / session_key / "memory.jsonl"

    def append(self, session_key: str, *entries: MemoryEntry) -> None:
        if not entries:
            return
        path = self.path_for(session_key)
        payload = "".join(entry.model_dump_json() + "\n" for entry in entries)
        with self._lock:
            make_private_dirs(path.parent)
            needs_newline = path.exists() and _ends_without_newline(path)
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, PRIVATE_FILE_MODE)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(("\n" if needs_newline else "") + payload)

    def load(self, session_key: str, *, limit: int | None = None) -> list[MemoryEntry]:
        """The last ``limit`` readable entries, oldest first (all of them when None).

        Only as much of the file as those entries need is read, from its end.
        Unreadable lines met on the way are skipped with one warning.
        """
        if limit is not None and limit <= 0:
            return []
        path = self.path_for(session_key)
        try:
            handle = path.open("rb")
        except FileNotFoundError:
            return []
        except OSError as exc:
            logger.warning(
                "cannot read session memory %s (%s); this run starts without it",
                path,
                exc.strerror or exc,
            )
            return []
        entries: list[MemoryEntry] = []
        skipped: list[tuple[int, str]] = []  # (lines from the end, why)
        with handle:
            for from_end, line in enumerate(_lines_from_end(handle, self.block_size)):
                if not line.strip():
                    continue
                entry, problem = _parse(line)
                if entry is None:
                    skipped.append((from_end, problem))
                    continue
                entries.append(entry)
                if limit is not None and len(entries) >= limit:
                    break
            if skipped:
                _warn_skipped(path, handle, skipped)
        entries.reverse()
        return entries


def _parse(line: bytes) -> tuple[MemoryEntry | None, str]:
    try:
        return MemoryEntry.model_validate(load_json(line)), ""
    except UnicodeDecodeError:
        return None, "not UTF-8"
    except JsonTooDeepError:
        return None, "nested too deep"
    except ValidationError:
        return None, "not a memory entry"
    except ValueError:
        return None, "not JSON"


def _lines_from_end(handle: IO[bytes], block: int) -> Iterator[bytes]:
    """Yield the file's lines last first (the text after the final newline first)."""
    position = handle.seek(0, os.SEEK_END)
    carry = b""
    while position > 0:
        size = min(block, position)
        position -= size
        handle.seek(position)
        lines = (handle.read(size) + carry).split(b"\n")
        carry = lines[0]
        yield from reversed(lines[1:])
    yield carry


def _warn_skipped(path: Path, handle: IO[bytes], skipped: list[tuple[int, str]]) -> None:
    # Line numbers count from the start, so count the newlines once; only a
    # damaged file pays for it.
    handle.seek(0)
    newlines = sum(block.count(b"\n") for block in iter(lambda: handle.read(_BLOCK), b""))
    total = newlines + 1  # _lines_from_end yields one more item than newlines
    described = [f"{total - from_end} ({why})" for from_end, why in reversed(skipped)]
    more = len(described) - _SHOWN_LINES
    shown = ", ".join(described[:_SHOWN_LINES]) + (f" and {more} more" if more > 0 else "")
    logger.warning(
        "skipped %d unreadable line(s) of session memory %s, at line(s) %s; the other entries "
        "are used (delete or fix those lines to silence this)",
        len(skipped),
        path,
        shown,
    )


def _ends_without_newline(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, 2)
        if handle.tell() == 0:
            return False
        handle.seek(-1, 2)
        return handle.read(1) != b"\n"
