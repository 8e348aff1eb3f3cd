"""A conversation as the judge reads it; its checks are in :mod:`harness.evals.builtin_checks`."""

from __future__ import annotations

from harness.conversations import ConversationResult
from harness.evals.builtin_checks import goal_failures

__all__ = ["goal_failures", "transcript_text"]


def transcript_text(result: ConversationResult) -> str:
    """The conversation as ``user: ...`` / ``assistant: ...`` lines (what a judge reads)."""
    return "\n".join(f"{m.role}: {m.content}" for m in result.messages)
