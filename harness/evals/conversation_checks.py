"""The verdicts of a conversation case: what the agent said, the state, the turns.

These read the whole conversation (every agent turn), where ``answer_contains``
reads only the agent's last message; the goal is the state file after the
conversation, as τ-bench judges it. The tool-call checks (``tools_called``,
``calls``, ``trajectory``) are the one-prompt cases' own, fed with the calls of
every turn.
"""

from __future__ import annotations

from pathlib import Path

from harness.conversations import ConversationResult, state_failures
from harness.evals.cases import CaseChecks, StateCheck

__all__ = ["conversation_failures", "goal_failures", "transcript_text"]

_SHOWN = 300


def goal_failures(check: StateCheck, workdir: Path) -> list[str]:
    """How the state file misses the goal (empty: the goal is reached)."""
    path = workdir / check.path
    if check.subset is not None:
        return state_failures(path, check.subset, subset=True)
    return state_failures(path, check.equals)


def conversation_failures(
    checks: CaseChecks, result: ConversationResult, workdir: Path
) -> list[str]:
    """Every failed conversation check of ``checks`` on ``result``."""
    failures: list[str] = []
    said = result.said()
    for word in checks.said_contains:
        if not any(word in text for text in said):
            failures.append(f"said_contains: no agent turn says {word!r}")
    for word in checks.said_not_contains:
        turns = [number for number, text in enumerate(said, 1) if word in text]
        if turns:
            failures.append(
                f"said_not_contains: agent turn(s) {turns} say {word!r}: "
                f"{said[turns[0] - 1][:_SHOWN]!r}"
            )
    if checks.state is not None:
        failures += goal_failures(checks.state, workdir)
    if checks.max_turns is not None and result.turns > checks.max_turns:
        failures.append(
            f"max_turns: the conversation took {result.turns} user turns, at most "
            f"{checks.max_turns} allowed"
        )
    if checks.conversation_end is not None and result.stop_reason != checks.conversation_end:
        failures.append(
            f"conversation_end: it ended by {result.stop_reason}, "
            f"expected {checks.conversation_end}"
        )
    return failures


def transcript_text(result: ConversationResult) -> str:
    """The conversation as ``user: ...`` / ``assistant: ...`` lines (what a judge reads)."""
    return "\n".join(f"{m.role}: {m.content}" for m in result.messages)
