"""DefaultRiskPolicy: which tool calls a human must approve before they run.

The policy reads only the tool name and its arguments (plus the workdir, to
resolve paths, and the line counts of a file an overwrite replaces); it never
runs anything. Three families of risk are judged:

* ``bash`` (``risk_shell``): dangerous programs found by
  ``harness.shell.resolve_commands`` (so quoting, wrappers, ``bash -c`` strings and
  here-documents cannot hide them), code the policy cannot read (``python -c``,
  ``awk 'system(...)'``), environment that changes later commands, writes to
  sensitive files, and, when bash runs without the sandbox, the state dir.
  The command text is judged only where no overlay shows what the call did
  (the sandbox off, the network on); there it fails closed (``risk_readonly``):
  a command the named rules pass still asks unless it is shown read-only.
* ``write`` / ``edit`` (``effects.sensitive_paths``): sensitive paths (``.env*``,
  ``pyproject.toml``, lockfiles, CI config, git config and hooks, any path
  component containing "secret" or "key").
* ``edit`` / ``write mode=overwrite`` (``risk_deletion``): large deletions,
  summed over one run.

Whatever cannot be judged (unparseable shell, missing arguments, a tool listed
as required but unknown to this policy) needs approval: the policy fails closed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from harness.approval._risk_deletion import (
    DeletionTally,
    count_deleted_lines,
    count_overwritten_lines,
)
from harness.approval._risk_effects import write_edit_reasons
from harness.approval._risk_readonly import not_read_only_reasons
from harness.approval._risk_shell import shell_command_reasons
from harness.approval.decision import RiskDecision, RiskLevel, RiskVerdict
from harness.effects import DEFAULT_CODE_PATHS, CodePaths, EffectPolicy, sensitive_path_reason
from harness.tools import ToolExecutionContext

__all__ = [
    "RUN_ID_KEY",
    "DefaultRiskPolicy",
    "RiskDecision",
    "RiskLevel",
    "RiskVerdict",
    "count_deleted_lines",
    "sensitive_path_reason",
    "shell_command_reasons",
]

# Context metadata naming the run a call belongs to; when the engine does not set
# it, a run is told apart by its session and its step count going back to 1.
RUN_ID_KEY = "run_id"


class DefaultRiskPolicy:
    """Judges ``bash``, ``write`` and ``edit`` calls by their arguments.

    It never denies on its own: a risky call needs approval, so a human can still
    let a legitimate lockfile update or release through.

    Args:
        required_tools: tools this policy judges; any other tool is allowed.
            ``read`` (when listed) is judged by its path like ``write``; a listed
            tool the policy has no rules for always needs approval.
        large_deletion_lines: a run whose edits and overwrites remove (or blank)
            at least this many lines in total needs approval for the call that
            reaches it; the tally then starts again.
        state_dir: harness's state dir, guarded against ``bash`` when it runs
            without the sandbox.
        sandboxed: whether ``bash`` runs in the sandbox that hides the state dir.
            Defaults to False (fail closed): the app passes True only when the
            sandbox is really in use.
        overlay: whether ``bash`` runs over an overlay whose changeset the
            approval middleware judges with ``effects`` after the call. With the
            network off, the command text is then not judged at all (the
            changeset shows everything the call did); with it on, both are.
            Wherever the text is judged, only a command shown to be read-only
            runs without approval.

    ``effects`` is the ``EffectPolicy`` shared by bash changesets, ``write``
    and ``edit``: one lost-byte tally per run for all three; ``code_paths``
    (``HARNESS_SENSITIVE_PATHS``) are the project's files that run code later.
    """

    def __init__(
        self,
        required_tools: Iterable[str] = ("bash", "write", "edit"),
        large_deletion_lines: int = 20,
        *,
        state_dir: Path | None = None,
        sandboxed: bool = False,
        overlay: bool = False,
        network: bool = False,
        code_paths: CodePaths = DEFAULT_CODE_PATHS,
    ) -> None:
        self.required_tools = tuple(required_tools)
        self.large_deletion_lines = large_deletion_lines
        self.state_dir = state_dir
        self.sandboxed = sandboxed
        self.overlay = overlay
        self.network = network
        self.deletions = DeletionTally()
        self.code_paths = code_paths
        self.effects = EffectPolicy(code_paths=code_paths)
        self._runs = _RunTracker()

    def run_key(self, ctx: ToolExecutionContext) -> str:
        """The run ``ctx`` belongs to, as the deletion tallies count it."""
        return self._runs.key(ctx)

    def evaluate(self, ctx: ToolExecutionContext) -> RiskDecision:
        """Judge the call in ``ctx`` (its tool name, arguments and workdir)."""
        new_text = _planned_text(ctx) if ctx.tool_name == "edit" else None
        return self.evaluate_call(
            ctx.tool_name,
            ctx.arguments,
            workdir=ctx.tool_input.workdir,
            run=self._runs.key(ctx),
            new_text=new_text,
        )

    def evaluate_call(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        workdir: Path | None = None,
        run: str | None = None,
        new_text: str | None = None,
    ) -> RiskDecision:
        """Judge a call without a context.

        ``workdir`` lets paths be resolved; ``run`` names the run the call belongs
        to, so deletions add up over it (None: this call alone); ``new_text`` is
        the text an ``edit`` would leave (judged as a changeset when given).
        """
        if tool_name not in self.required_tools:
            return RiskDecision.allow()
        if tool_name == "bash" and self.overlay and not self.network:
            reasons = []  # the changeset decides, after the call (HumanApprovalMiddleware)
        elif tool_name == "bash":
            reasons = shell_command_reasons(
                arguments.get("command"),
                workdir,
                state_dir=self.state_dir,
                sandboxed=self.sandboxed,
            )
            # No changeset will show what the call did: fail closed (risk_readonly).
            reasons = reasons or not_read_only_reasons(arguments.get("command"))
        elif (
            tool_name in ("write", "edit")
            and workdir is not None
            and (tool_name == "write" or new_text is not None)
        ):
            action = "write to" if tool_name == "write" else "edit of"
            reasons = _path_reasons(action, arguments.get("path"), workdir, self.code_paths)
            effects = write_edit_reasons(self.effects, tool_name, arguments, workdir, run, new_text)
            if reasons:  # the path is already named: keep the effect's other reasons
                effects = [r for r in effects if not r.startswith("touches a sensitive path")]
            reasons += effects
        elif tool_name in ("write", "read"):
            action = "write to" if tool_name == "write" else "read of"
            # Files that run code later are sensitive to write, not to read.
            code = self.code_paths if tool_name == "write" else CodePaths(())
            reasons = _path_reasons(action, arguments.get("path"), workdir, code)
            if tool_name == "write":
                removed = count_overwritten_lines(arguments, workdir)
                reasons += self._deletion_reasons("overwrite", removed, arguments, run)
        elif tool_name == "edit":
            reasons = _path_reasons("edit of", arguments.get("path"), workdir, self.code_paths)
            removed = count_deleted_lines(arguments)
            reasons += self._deletion_reasons("edit", removed, arguments, run)
        else:
            reasons = [f"tool {tool_name!r} always requires approval (no finer rules for it)"]
        return RiskDecision.approval_required(reasons) if reasons else RiskDecision.allow()

    def _deletion_reasons(
        self, action: str, removed: int, arguments: Mapping[str, Any], run: str | None
    ) -> list[str]:
        if removed <= 0:
            return []
        total = removed if run is None else self.deletions.add(run, removed)
        if total < self.large_deletion_lines:
            return []
        if run is not None:
            self.deletions.reset(run)
        path = arguments.get("path")
        if total == removed:
            return [
                f"large deletion: {action} removes {removed} lines of {path} "
                f"(threshold {self.large_deletion_lines})"
            ]
        return [
            f"large deletion: {action} removes {removed} lines of {path}, {total} lines "
            f"removed in this run so far (threshold {self.large_deletion_lines})"
        ]


class _RunTracker:
    """Names the run a call belongs to.

    The engine's ``run_id`` metadata when present; otherwise the session key plus
    a counter bumped whenever the step count goes back (a new run starts at 1).
    """

    def __init__(self) -> None:
        self._last: dict[str, tuple[int, int]] = {}
        self._lock = threading.Lock()

    def key(self, ctx: ToolExecutionContext) -> str:
        run_id = ctx.metadata.get(RUN_ID_KEY)
        if isinstance(run_id, str) and run_id:
            return run_id
        session = ctx.tool_input.session
        name = session.key if session is not None else ""
        with self._lock:
            last_step, generation = self._last.get(name, (0, 0))
            if ctx.step < last_step:
                generation += 1
            if len(self._last) >= 1024 and name not in self._last:
                self._last.clear()  # bounded; a forgotten session only starts a new tally
            self._last[name] = (ctx.step, generation)
        return f"{name}#{generation}"


def _planned_text(ctx: ToolExecutionContext) -> str | None:
    """The text an edit would leave, from the tool's own plan; None when it has none."""
    plan = getattr(ctx.tool, "plan", None)
    if plan is None:
        return None
    try:
        updated = plan(ctx.tool_input).updated
    except Exception:  # the edit does not apply: it changes nothing, the tool says why
        return None
    return updated if isinstance(updated, str) else None


def _path_reasons(
    action: str, path: object, workdir: Path | None, code: CodePaths = DEFAULT_CODE_PATHS
) -> list[str]:
    if not isinstance(path, str) or not path.strip():
        return [f"{action} a file whose path argument is missing or not text (cannot be judged)"]
    reason = sensitive_path_reason(path, workdir, code)
    return [f"{action} sensitive file: {path} ({reason})"] if reason else []
