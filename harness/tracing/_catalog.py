"""The recorded traces of a state directory, newest first (``harness trace list``).

Listing reads only the top of each file's JSON (ids, times, the root's stop
reason and step count) without schema validation, so a folder of thousands of
traces lists quickly; ``TraceTree.load`` validates a trace when it is opened. A
file that cannot be read or parsed is reported as ``UnreadableTrace`` instead of
stopping the listing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.tracing._errors import TracingError
from harness.tracing._schema import READABLE_SCHEMA_VERSIONS

__all__ = ["TraceCatalog", "TraceSummary", "UnreadableTrace", "list_traces"]


class TraceSummary(BaseModel):
    """One recorded trace, as ``harness trace list`` shows it."""

    model_config = ConfigDict(frozen=True)

    trace_id: str
    session_key: str | None
    started_at: str
    duration_ms: float | None
    stop_reason: str | None
    steps: int | None
    root_kind: str
    capture_mode: str | None
    path: Path


class UnreadableTrace(BaseModel):
    """A trace file that could not be read or parsed, and why."""

    model_config = ConfigDict(frozen=True)

    path: Path
    reason: str


class TraceCatalog(BaseModel):
    """The result of ``list_traces``: readable traces newest first, then the rest."""

    model_config = ConfigDict(frozen=True)

    traces: tuple[TraceSummary, ...]
    unreadable: tuple[UnreadableTrace, ...]


def list_traces(
    state_dir: Path, *, session: str | None = None, limit: int | None = None
) -> TraceCatalog:
    """Summarise ``state_dir/sessions/*/traces/*.json``, newest first.

    Args:
        state_dir: the harness state directory.
        session: only this session's traces (``_no_session`` for runs without one).
        limit: at most this many readable traces (the newest).

    Raises:
        TracingError: ``limit`` is below 1, ``session`` is not a session key, or
            ``state_dir`` (or its ``sessions``) exists but is not a folder.
    """
    if limit is not None and limit < 1:
        raise TracingError(f"limit must be at least 1, got {limit}")
    sessions = Path(state_dir) / "sessions"
    # A file where the folder should be would otherwise list as "no traces".
    for folder in (Path(state_dir), sessions):
        if folder.exists() and not folder.is_dir():
            raise TracingError(
                f"the state dir must be a folder, but {folder} is a file; point "
                "HARNESS_STATE_DIR at the harness state folder (the one holding sessions/)"
            )
    if session is None:
        files = sessions.glob("*/traces/*.json")
    elif "/" in session or "\\" in session or session in ("", ".", ".."):
        raise TracingError(f"session {session!r} is not a session key (no path separators)")
    else:
        files = (sessions / session / "traces").glob("*.json")  # no pattern in the key
    summaries: list[TraceSummary] = []
    unreadable: list[UnreadableTrace] = []
    for path in sorted(files):
        try:
            summaries.append(_summary(path))
        except TracingError as exc:
            unreadable.append(UnreadableTrace(path=path, reason=str(exc)))
    summaries.sort(key=lambda s: (s.started_at, s.trace_id), reverse=True)
    return TraceCatalog(traces=tuple(summaries[:limit]), unreadable=tuple(unreadable))


def _summary(path: Path) -> TraceSummary:
    try:
        data = json.loads(path.read_bytes())
    except OSError as exc:
        raise TracingError(f"cannot read: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise TracingError(f"not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise TracingError(f"not a JSON object but {type(data).__name__}")
    version = data.get("schema_version")
    if version not in READABLE_SCHEMA_VERSIONS or isinstance(version, bool):
        raise TracingError(f"schema_version {version!r} is not one this harness reads")
    root = data.get("root")
    if not isinstance(root, dict) or not isinstance(data.get("trace_id"), str):
        raise TracingError("no trace_id or root span")
    attributes: dict[str, Any] = root.get("attributes") or {}
    session_key = data.get("session_key")
    steps = attributes.get("steps")
    try:
        return TraceSummary(
            trace_id=data["trace_id"],
            session_key=session_key,
            started_at=data.get("created_at") or root.get("started_at") or "",
            duration_ms=root.get("duration_ms"),
            stop_reason=_text(attributes.get("stop_reason")),
            steps=steps if isinstance(steps, int) and not isinstance(steps, bool) else None,
            root_kind=str(root.get("kind", "?")),
            capture_mode=_text(data.get("capture_mode")),
            path=path,
        )
    except ValueError as exc:  # pydantic's ValidationError
        raise TracingError(f"unexpected top-level values ({exc.__class__.__name__})") from exc


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
