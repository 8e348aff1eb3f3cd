"""SubagentRunner: runs an Explorer child loop in its own session."""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
from dataclasses import dataclass
from pathlib import Path

from harness.core.errors import ToolError
from harness.engine import (
    ContextBuilder,
    ContextCompactor,
    MainLoop,
    RunMode,
    StopReason,
    ToolExecutor,
)
from harness.providers import LLMProvider
from harness.session import SessionMemoryStore, SessionPlanStore, SessionRef
from harness.tools import ToolInput, ToolRegistry
from harness.tools.builtin import ReadTool
from harness.tracing import NullTracer, Tracer

__all__ = ["EXPLORER_SYSTEM_PROMPT", "ExplorerReport", "SubagentRunner", "child_session_for"]

logger = logging.getLogger("harness.subagent")

EXPLORER_SYSTEM_PROMPT = (
    "You are an Explorer subagent working read-only in a project directory. Investigate the task "
    "with the read tool (read several files at once when you can), then reply with a "
    "concise report of what you found, quoting exact names and values. You cannot "
    "change anything."
)


@dataclass(frozen=True, slots=True)
class ExplorerReport:
    """What the parent learns: the report and how the child run ended."""

    child_session: SessionRef
    stop_reason: str
    report: str
    steps: int
    max_steps: int
    files_read: tuple[str, ...]


def child_session_for(parent: SessionRef, tool_call_id: str | None = None) -> SessionRef:
    """The child session of ``parent`` for one explore call.

    The id derives from the explore call's id when there is one, so a replayed
    run (same recorded call ids) names its child the same and sends the model
    byte-identical requests; without a call id it is random.
    """
    if tool_call_id:
        digest = hashlib.sha256(f"{parent.key}\x00{tool_call_id}".encode()).hexdigest()
        child_id = digest[:12]
    else:
        child_id = secrets.token_hex(6)
    return SessionRef(
        key=f"parent-{parent.key}-explore-{child_id}",
        source="subagent",
        external_id=f"{parent.key}:explore:{child_id}",
        workdir=parent.workdir,
        display_name=f"explore:{parent.label}:{child_id}",
    )


class _ReadLog:
    """Wraps ``read`` to remember which files the child managed to read."""

    name = "read"

    def __init__(self, inner: ReadTool) -> None:
        self.inner = inner
        self.description = inner.description
        self.parameters = inner.parameters
        self.paths: list[str] = []
        self._lock = threading.Lock()

    def run(self, tool_input: ToolInput) -> str:
        text = self.inner.run(tool_input)
        with self._lock:
            self.paths.append(str(tool_input.arguments.get("path")))
        return text


class SubagentRunner:
    """Runs Explorer children on the parent's provider with a read-only registry."""

    def __init__(
        self,
        *,
        provider: LLMProvider,
        workdir: Path,
        memory: SessionMemoryStore,
        plans: SessionPlanStore,
        tracer: Tracer | None = None,
        compactor: ContextCompactor | None = None,
        max_parallel_tools: int = 8,
    ) -> None:
        self.provider = provider
        self.workdir = workdir
        self.memory = memory
        self.plans = plans
        self.tracer: Tracer = tracer or NullTracer()
        self.compactor = compactor or ContextCompactor()
        self.max_parallel_tools = max_parallel_tools

    def run_explorer(
        self, parent: SessionRef, task: str, max_steps: int, *, tool_call_id: str | None = None
    ) -> ExplorerReport:
        """Run one Explorer child to a report; provider failures raise ``ToolError``."""
        child = child_session_for(parent, tool_call_id)
        workdir = (child.workdir or self.workdir).resolve()
        reads = _ReadLog(ReadTool(state_dir=self.memory.state_dir))
        executor = ToolExecutor(
            ToolRegistry([reads]),
            tracer=self.tracer,
            max_parallel_tools=self.max_parallel_tools,
            log_tag=child.key,
        )
        loop = MainLoop(
            provider=self.provider,
            registry=executor.registry,
            executor=executor,
            enabled_tools=("read",),
            workdir=workdir,
            memory=self.memory,
            plans=self.plans,
            context_builder=ContextBuilder(EXPLORER_SYSTEM_PROMPT, memory_limit=0),
            compactor=self.compactor,
            tracer=self.tracer,
            step_spans=False,
        )
        logger.info(
            "explorer start parent_session=%s child_session=%s max_steps=%d task_chars=%d "
            "workdir=%s child_tools=read",
            parent.key,
            child.key,
            max_steps,
            len(task),
            workdir,
        )
        try:
            result = loop.run(
                task,
                session=child,
                mode=RunMode.ACT,
                max_steps=max_steps,
                trace_kind="subagent.run",
            )
        finally:
            executor.close()
        reason = "final" if result.stop_reason is StopReason.FINAL else "max_steps_exhausted"
        if result.stop_reason is StopReason.PROVIDER_ERROR:
            reason = "provider_error"
        logger.info(
            "explorer finish child_session=%s reason=%s steps=%d/%d provider=%s report_chars=%d",
            child.key,
            reason,
            result.steps,
            max_steps,
            self.provider.name,
            len(result.text),
        )
        if reason == "provider_error":
            raise ToolError(
                f"the Explorer subagent ({child.key}) failed: {result.error}; "
                "try again later or read the files yourself",
                error_type="subagent_provider_error",
            )
        files = tuple(dict.fromkeys(reads.paths))
        report = result.text if reason == "final" else _exhausted(max_steps, files, result.text)
        return ExplorerReport(child, reason, report, result.steps, max_steps, files)


def _exhausted(max_steps: int, files: tuple[str, ...], partial: str) -> str:
    listed = ", ".join(files) if files else "nothing"
    text = f"No definite answer was found within {max_steps} steps. Files read: {listed}."
    if partial.strip():
        text += f"\nLast notes from the explorer: {partial.strip()}"
    return text
