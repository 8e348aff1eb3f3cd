"""The chat grammar for deciding approvals: ``/approve <id>`` and ``/reject <id> [reason]``.

Plain functions on strings, no Feishu types: the grammar is the adapter's
contract with the humans typing in the chat, so it is tested as a table.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from harness.core.errors import ApprovalError

__all__ = [
    "APPROVAL_ID_PATTERN",
    "ApprovalCommand",
    "ApprovalCommandError",
    "parse_approval_command",
    "strip_mentions",
]

APPROVAL_ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,128}")

# Feishu puts placeholders ("@_user_1", "@_all") in the text of a message that
# mentions someone (usually the bot); only those are stripped, not any "@word".
_LEADING_MENTIONS = re.compile(r"^(?:@_(?:user_\d+|all)(?:\s+|$))+")
_COMMAND = re.compile(r"^/(?P<word>approve|reject)(?=\s|$)(?P<rest>.*)$", re.I | re.S)

_USAGE = {
    "approve": "usage: /approve <approval-id>",
    "reject": "usage: /reject <approval-id> [reason]",
}


@dataclass(frozen=True)
class ApprovalCommand:
    """A parsed decision: ``action`` is "approve" or "reject"; ``reason`` only on reject."""

    action: Literal["approve", "reject"]
    approval_id: str
    reason: str | None = None


class ApprovalCommandError(ApprovalError):
    """The text is an approval command with a missing or malformed id.

    Nothing was decided. The message holds the usage line to show the human.

    Attributes:
        usage: the one-line usage of the command that was meant.
    """

    def __init__(self, message: str, *, usage: str) -> None:
        super().__init__(f"{message}; {usage}")
        self.usage = usage


def strip_mentions(text: str) -> str:
    """``text`` without surrounding whitespace and leading @mention placeholders."""
    return _LEADING_MENTIONS.sub("", text.strip()).strip()


def parse_approval_command(text: str) -> ApprovalCommand | None:
    """Parse ``text`` as an approval command.

    Args:
        text: the message text as Feishu delivers it (may start with @mentions).

    Returns:
        The command, or ``None`` when the text is not an approval command at all
        (it is then an ordinary prompt for the agent).

    Raises:
        ApprovalCommandError: the text starts with ``/approve`` or ``/reject``
            but the id is missing or malformed, or ``/approve`` has extra words.
    """
    match = _COMMAND.match(strip_mentions(text))
    if match is None:
        return None
    action: Literal["approve", "reject"] = (
        "approve" if match["word"].lower() == "approve" else "reject"
    )
    usage = _USAGE[action]
    parts = match["rest"].strip().split(maxsplit=1)
    if not parts:
        raise ApprovalCommandError(f"/{action} needs an approval id", usage=usage)
    approval_id = parts[0]
    if not APPROVAL_ID_PATTERN.fullmatch(approval_id):
        raise ApprovalCommandError(
            f"{approval_id[:80]!r} is not an approval id (letters, digits, _ and -)",
            usage=usage,
        )
    reason = parts[1].strip() if len(parts) > 1 else None
    if action == "approve":
        if reason:
            # Fail closed: extra words may be a reason meant for /reject.
            raise ApprovalCommandError("/approve takes only the approval id", usage=usage)
        return ApprovalCommand("approve", approval_id)
    return ApprovalCommand("reject", approval_id, reason or None)
