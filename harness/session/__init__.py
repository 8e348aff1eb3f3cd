"""Sessions: identity, the session manager and JSONL memory."""

from harness.session.manager import SessionManager
from harness.session.memory import MemoryEntry, SessionMemoryStore
from harness.session.plan import SessionPlanStore
from harness.session.ref import SESSION_KEY_PATTERN, SessionRef

__all__ = [
    "SESSION_KEY_PATTERN",
    "MemoryEntry",
    "SessionManager",
    "SessionMemoryStore",
    "SessionPlanStore",
    "SessionRef",
]
