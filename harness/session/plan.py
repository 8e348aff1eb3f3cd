"""The plan-act TODO plan kept with a session between runs."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from harness.files import atomic_write_text

__all__ = ["SessionPlanStore"]

logger = logging.getLogger("harness.session")


class SessionPlanStore:
    """Reads and writes ``state_dir/sessions/<key>/plan.json``."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def path_for(self, session_key: str) -> Path:
        return self.state_dir / "sessions" / session_key / "plan.json"

    def load(self, session_key: str) -> str | None:
        path = self.path_for(session_key)
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, json.JSONDecodeError):
            logger.warning("ignoring unreadable plan file %s", path)
            return None
        plan = data.get("plan") if isinstance(data, dict) else None
        return plan if isinstance(plan, str) and plan.strip() else None

    def save(self, session_key: str, plan: str) -> None:
        atomic_write_text(self.path_for(session_key), json.dumps({"version": 1, "plan": plan}))

    def clear(self, session_key: str) -> None:
        self.path_for(session_key).unlink(missing_ok=True)
