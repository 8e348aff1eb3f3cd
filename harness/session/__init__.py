"""Sessions: identity, the session manager and JSONL memory."""

from harness.session.ref import SESSION_KEY_PATTERN, SessionRef

__all__ = ["SESSION_KEY_PATTERN", "SessionRef"]
