"""Resolving what callers pass as ``session`` into a ``SessionRef``."""

from __future__ import annotations

from pathlib import Path

from harness.core.errors import ConfigurationError
from harness.session._ref import SessionRef

__all__ = ["SessionManager"]


class SessionManager:
    """Turns a key or a ``SessionRef`` into a ``SessionRef`` bound to a workdir."""

    def __init__(self, state_dir: Path, workdir: Path, *, default_key: str = "default") -> None:
        self.state_dir = state_dir
        self.workdir = workdir
        self.default_key = default_key

    def resolve(self, session: str | SessionRef | None) -> SessionRef:
        if session is None:
            session = self.default_key
        if isinstance(session, SessionRef):
            if session.workdir is None:
                return session.model_copy(update={"workdir": self.workdir})
            return session
        try:
            return SessionRef(key=session, workdir=self.workdir)
        except ValueError as exc:
            raise ConfigurationError(str(exc)) from None

    def session_dir(self, session: SessionRef) -> Path:
        return self.state_dir / "sessions" / session.key

    def list_keys(self) -> list[str]:
        root = self.state_dir / "sessions"
        if not root.is_dir():
            return []
        return sorted(p.name for p in root.iterdir() if p.is_dir())
