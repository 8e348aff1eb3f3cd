"""The Explorer subagent: a read-only child run in its own session."""

from harness.subagent._runner import (
    EXPLORER_SYSTEM_PROMPT,
    ExplorerReport,
    SubagentRunner,
    child_session_for,
)
from harness.subagent._tool import MAX_EXPLORE_STEPS, ExplorerSubagentTool

__all__ = [
    "EXPLORER_SYSTEM_PROMPT",
    "MAX_EXPLORE_STEPS",
    "ExplorerReport",
    "ExplorerSubagentTool",
    "SubagentRunner",
    "child_session_for",
]
