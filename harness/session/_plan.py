"""The plan-act TODO plan kept with a session between runs.

A plan file that cannot be used (unreadable, not UTF-8, not JSON, nested too
deep, no plan text in it) is ignored with a warning: the next plan-act run
makes a new plan and overwrites it, instead of the session failing forever.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from harness.files import atomic_write_text
from harness.jsonload import load_json

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
        try:
            data = load_json(path.read_bytes(), source="it")
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:  # also UnicodeDecodeError, JsonTooDeepError
            logger.warning("ignoring unreadable plan file %s (%s); a new plan is made", path, exc)
            return None
        plan = data.get("plan") if isinstance(data, dict) else None
        if isinstance(plan, str) and plan.strip():
            return plan
        logger.warning("ignoring plan file %s: it holds no plan text; a new plan is made", path)
        return None

    def save(self, session_key: str, plan: str) -> None:
        atomic_write_text(
            self.path_for(session_key),
            json.dumps({"version": 1, "plan": plan}),
            private=True,
        )

    def clear(self, session_key: str) -> None:
        self.path_for(session_key).unlink(missing_ok=True)
