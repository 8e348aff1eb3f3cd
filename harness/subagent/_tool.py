"""The ``explore`` tool: a thin adapter from a tool call to the SubagentRunner."""

from __future__ import annotations

from typing import Any

from harness.core.errors import ToolError
from harness.subagent._runner import SubagentRunner
from harness.tools import ToolInput, ToolOutput

__all__ = ["MAX_EXPLORE_STEPS", "ExplorerSubagentTool"]

MAX_EXPLORE_STEPS = 12


class ExplorerSubagentTool:
    """Delegate a read-only investigation to a child agent; get back only its report.

    Args:
        runner: runs the child loop.
        max_result_chars: the report is cut at this length in the observation.
    """

    name = "explore"
    description = (
        "Delegate a read-only investigation of the workspace to an Explorer subagent. "
        "It reads files in its own session and returns only a short report. Give it a "
        "precise task, e.g. 'Find the version number in README.md and the module list in "
        "notes/architecture.txt'."
    )
    parameters: dict[str, Any] = {
        "type": "object",
        "properties": {
            "task": {"type": "string", "description": "What to find out."},
            "max_steps": {
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_EXPLORE_STEPS,
                "default": 6,
            },
        },
        "required": ["task"],
        "additionalProperties": False,
    }

    def __init__(self, runner: SubagentRunner, *, max_result_chars: int = 4000) -> None:
        self.runner = runner
        self.max_result_chars = max_result_chars

    def run(self, tool_input: ToolInput) -> ToolOutput:
        task = tool_input.arguments.get("task")
        if not isinstance(task, str) or not task.strip():
            raise ToolError(
                "argument 'task' must be a non-empty description of what to find out",
                error_type="invalid_arguments",
            )
        max_steps = tool_input.arguments.get("max_steps", 6)
        if isinstance(max_steps, bool) or not isinstance(max_steps, int):
            raise ToolError(
                "argument 'max_steps' must be an integer", error_type="invalid_arguments"
            )
        if not 1 <= max_steps <= MAX_EXPLORE_STEPS:
            raise ToolError(
                f"argument 'max_steps' must be between 1 and {MAX_EXPLORE_STEPS}, got {max_steps}",
                error_type="invalid_arguments",
            )
        if tool_input.session is None:
            raise ToolError(
                "explore needs a runtime session to derive the child session from; "
                "run it inside Application.run",
                error_type="session_required",
            )
        call_id = tool_input.metadata.get("tool_call_id")
        outcome = self.runner.run_explorer(
            tool_input.session,
            task.strip(),
            max_steps,
            tool_call_id=call_id if isinstance(call_id, str) else None,
        )
        report = outcome.report
        if len(report) > self.max_result_chars:
            cut = len(report) - self.max_result_chars
            report = report[: self.max_result_chars] + f"\n[report truncated: {cut} more chars]"
        text = (
            "[Explorer Subagent Report]\n"
            f"child_session: {outcome.child_session.key}\n"
            f"stop_reason: {outcome.stop_reason}\n"
            f"steps: {outcome.steps}/{outcome.max_steps}\n\n"
            f"{report}"
        )
        return ToolOutput(
            text,
            {"child_session": outcome.child_session.key, "stop_reason": outcome.stop_reason},
        )
