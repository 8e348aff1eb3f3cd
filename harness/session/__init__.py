"""Sessions: identity, the session manager and JSONL memory."""

from harness.session._manager import SessionManager
from harness.session._memory import MemoryEntry, SessionMemoryStore
from harness.session._owner import check_state_dir_owner, mark_state_dir
from harness.session._plan import SessionPlanStore
from harness.session._ref import SESSION_KEY_PATTERN, SessionRef

__all__ = [
    "SESSION_KEY_PATTERN",
    "MemoryEntry",
    "SessionManager",
    "SessionMemoryStore",
    "SessionPlanStore",
    "SessionRef",
    "check_state_dir_owner",
    "mark_state_dir",
]
