"""Sessions: identity, the session manager and JSONL memory."""

from harness.session.files import atomic_write_bytes, atomic_write_text
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
    "atomic_write_bytes",
    "atomic_write_text",
]
