"""build_application: wires settings, provider, tools, tracing and approval together."""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.approval import ApprovalSigner, ApprovalStore, CheckpointStore, DecisionLedger
from harness.approval.keyfile import approval_key_folder, default_key_path, load_approval_key
from harness.approval.middleware import HumanApprovalMiddleware
from harness.core.errors import ConfigurationError
from harness.core.wire_parts import load_part
from harness.core.wires import runtime_wires
from harness.engine import (
    DEFAULT_SYSTEM_PROMPT,
    ApprovalResumeRunner,
    ContextBuilder,
    ContextCompactor,
    MainLoop,
    RunMode,
    RunResult,
    ToolExecutor,
)
from harness.providers import LLMProvider
from harness.providers.tracking import UsageTrackingProvider
from harness.session import (
    SessionManager,
    SessionMemoryStore,
    SessionPlanStore,
    SessionRef,
    check_state_dir_owner,
    mark_state_dir,
)
from harness.settings import BUILTIN_TOOL_NAMES, Settings, check_tool_names
from harness.tools import Tool, ToolPolicyMiddleware, ToolRegistry
from harness.tracing import (
    FileTraceRecorder,
    MultiTraceRecorder,
    NullTracer,
    Tracer,
    TraceRecorder,
)

if TYPE_CHECKING:
    from harness.mcp import McpServers

__all__ = [
    "Application",
    "build_application",
    "build_provider",
    "check_folders",
    "open_approval_store",
]


class Application:
    """A configured harness: run prompts, resume approvals, report health."""

    def __init__(
        self,
        *,
        settings: Settings,
        provider: UsageTrackingProvider,
        registry: ToolRegistry,
        enabled_tools: tuple[str, ...],
        tracer: Tracer,
    ) -> None:
        self.settings = settings
        self.provider = provider
        self.registry = registry
        self.enabled_tools = enabled_tools
        self.tracer = tracer
        self.workdir = settings.workdir.resolve()
        self.state_dir = settings.resolved_state_dir
        self.sessions = SessionManager(self.state_dir, self.workdir)
        self.memory = SessionMemoryStore(self.state_dir)
        self.plans = SessionPlanStore(self.state_dir)
        self.executor = ToolExecutor(
            registry, tracer=tracer, max_parallel_tools=settings.max_parallel_tools
        )
        self.observers: list[Callable[[RunResult], None]] = []
        self.mcp: McpServers | None = None  # started by build_application, stopped by close
        signer = _approval_signer(settings, self.workdir, self.state_dir)
        self._sign = signer.digest
        self._needs_owner_mark = check_state_dir_owner(self.state_dir, self.workdir, self._sign)
        self.approvals = ApprovalStore(self.state_dir, signer)
        self.checkpoints = CheckpointStore(self.state_dir, signer)
        self.decisions = DecisionLedger(
            lambda: approval_key_folder(workdir=self.workdir, state_dir=self.state_dir) / "decided"
        )
        self.loop = MainLoop(
            provider=provider,
            registry=registry,
            executor=self.executor,
            enabled_tools=enabled_tools,
            workdir=self.workdir,
            memory=self.memory,
            plans=self.plans,
            context_builder=ContextBuilder(settings.system_prompt or DEFAULT_SYSTEM_PROMPT),
            compactor=ContextCompactor(settings.context_max_chars),
            tracer=tracer,
            max_tokens=settings.max_tokens,
        )

    def run(
        self,
        prompt: str,
        *,
        mode: RunMode | str = RunMode.ACT,
        session: str | SessionRef | None = None,
        max_steps: int | None = None,
        channel: Any = None,
    ) -> RunResult:
        """Run ``prompt`` in ``session`` and return the result."""
        if not isinstance(prompt, str) or not prompt.strip():
            raise ConfigurationError("the prompt is empty; pass the task for the agent as text")
        run_mode = _mode(mode)
        steps = self.settings.max_steps if max_steps is None else max_steps
        if steps < 1:
            raise ConfigurationError(f"max_steps must be at least 1, got {steps}")
        ref = self.sessions.resolve(session)
        self._own_state_dir()
        result = self.loop.run(prompt, session=ref, mode=run_mode, max_steps=steps, channel=channel)
        return self._notify(result)

    def _own_state_dir(self) -> None:
        # Before the first state write, so a later run knows this folder is harness's.
        if self._needs_owner_mark:
            mark_state_dir(self.state_dir, self._sign)
            self._needs_owner_mark = False

    def resume_approval(
        self,
        approval_id: str,
        decision: str,
        session: str | SessionRef | None = None,
        reason: str | None = None,
        *,
        decided_by: str = "api",
    ) -> RunResult:
        """Continue a paused run: ``decision`` is "approve" or "reject".

        ``decided_by`` is recorded with the decision: "api" (the default),
        "cli" or "feishu:<open_id>".

        Fails closed with ``ApprovalError`` (nothing executed) on an unknown id,
        another session's id, an expired or already decided approval, or a
        missing, corrupt, moved or tampered record or checkpoint.
        """
        ref = self.sessions.resolve(session)
        self._own_state_dir()
        runner = ApprovalResumeRunner(self.loop, self.approvals, self.checkpoints, self.decisions)
        result = runner.resume(approval_id, decision, ref, reason, decided_by=decided_by)
        return self._notify(result)

    def _notify(self, result: RunResult) -> RunResult:
        # Observers (the pytest plugin, eval reports) see every finished run.
        for observer in self.observers:
            observer(result)
        return result

    def health(self) -> dict[str, Any]:
        """What this application is configured to do, for ``harness health``."""
        return {
            "status": "ok",
            "provider": self.provider.name,
            "model": self.provider.model,
            "workdir": str(self.workdir),
            "state_dir": str(self.state_dir),
            "enabled_tools": list(self.enabled_tools),
            "trace_mode": self.tracer.mode,
            "approval_provider": self.settings.approval_provider,
        }

    def close(self) -> None:
        self.executor.close()
        if self.mcp is not None:
            self.mcp.close()

    def __enter__(self) -> Application:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _mode(mode: RunMode | str) -> RunMode:
    try:
        return RunMode(mode)
    except ValueError:
        allowed = ", ".join(m.value for m in RunMode)
        raise ConfigurationError(f"unknown run mode {mode!r}; use one of {allowed}") from None


def build_provider(settings: Settings) -> LLMProvider:
    """The provider ``settings`` name (HARNESS_PROVIDER)."""
    name = settings.provider_name
    if name == "echo":
        from harness.providers import EchoProvider

        return EchoProvider()
    if name == "scripted":
        from harness.providers.script_file import scripted_provider_from_file

        if settings.script is None:
            raise ConfigurationError(
                "HARNESS_PROVIDER=scripted needs HARNESS_SCRIPT: the path of a JSON or YAML "
                "file of turns"
            )
        return scripted_provider_from_file(settings.script)
    entry = next((w for w in runtime_wires() if w.name == name), None)
    if entry is not None:
        # The wire's SDK adapter, from its package by the registry's dotted path.
        adapter: Callable[..., LLMProvider] = load_part(entry, "provider")
        return adapter(
            settings.model or entry.default_model,
            api_key=_placeholder_key(settings, name),
            base_url=settings.base_url,
            max_retries=settings.max_retries,
            stream=settings.stream,
        )
    raise ConfigurationError(f"HARNESS_PROVIDER={settings.provider!r} is not supported")


def _placeholder_key(settings: Settings, wire_name: str) -> str | None:
    """No key is needed for a server on this machine (``harness sim serve``)."""
    from harness.core.wires import wire
    from harness.providers.credentials import base_url_from_env, loopback_placeholder_key

    entry = wire(wire_name)
    return loopback_placeholder_key(
        entry.key_env[0], base_url_from_env(settings.base_url, entry.base_url_env[0])
    )


def build_tracer(settings: Settings) -> Tracer:
    if settings.trace_mode == "off":
        return NullTracer()
    recorder: TraceRecorder = FileTraceRecorder(settings.resolved_state_dir)
    if settings.otel != "off":
        from harness.tracing.otel import build_otel_recorder  # imports the OTel SDK

        # The file first: MultiTraceRecorder returns the first path written.
        recorder = MultiTraceRecorder(recorder, build_otel_recorder(settings.otel))
    return Tracer(
        recorder,
        mode=settings.trace_mode,
        max_payload_chars=settings.trace_max_payload_chars,
    )


def build_application(
    settings: Settings | None = None,
    *,
    provider: LLMProvider | None = None,
    tools: Sequence[Tool] = (),
    tracer: Tracer | None = None,
    mcp_servers: Any = None,
) -> Application:
    """Wire an ``Application``.

    Args:
        settings: configuration; ``Settings.from_env()`` when omitted.
        provider: a provider object (a fake in tests); else built from settings.
        tools: extra user tools, registered and visible like builtins.
        tracer: a tracer to use instead of the one the settings describe.
        mcp_servers: MCP servers whose tools the model may call: the ``mcpServers``
            JSON shape as a mapping or a file path (default: HARNESS_MCP_SERVERS).
            They start now and stop with ``Application.close``.
    """
    from harness.mcp import start_mcp_servers

    settings = settings or Settings.from_env()
    check_folders(settings)
    mcp = start_mcp_servers(mcp_servers, settings.mcp_servers)
    try:
        return _build_application(settings, provider, tools, tracer, mcp)
    except BaseException:
        if mcp is not None:
            mcp.close()
        raise


def _build_application(
    settings: Settings,
    provider: LLMProvider | None,
    tools: Sequence[Tool],
    tracer: Tracer | None,
    mcp: McpServers | None,
) -> Application:
    from harness.mcp import approval_required, tools_of

    tracer = tracer or build_tracer(settings)
    tools = [*tools, *tools_of(mcp, tracer)]
    user_names = [tool.name for tool in tools]
    known = [*BUILTIN_TOOL_NAMES, *user_names]
    check_tool_names(settings.enabled_tools, known, "HARNESS_ENABLED_TOOLS")
    check_tool_names(settings.tool_allowlist, known, "HARNESS_TOOL_ALLOWLIST")
    check_tool_names(settings.tool_denylist, known, "HARNESS_TOOL_DENYLIST")
    tracked = UsageTrackingProvider(provider or build_provider(settings), tracer)
    registry = ToolRegistry()
    enabled = tuple(dict.fromkeys([*settings.enabled_tools, *user_names]))
    app = Application(
        settings=settings,
        provider=tracked,
        registry=registry,
        enabled_tools=enabled,
        tracer=tracer,
    )
    app.mcp = mcp
    for name in dict.fromkeys(settings.enabled_tools):
        if name not in user_names:
            registry.register(_builtin_tool(name, settings, app))
    for tool in tools:
        registry.register(tool)
    registry.use(ToolPolicyMiddleware(settings.tool_allowlist, settings.tool_denylist))
    if settings.approval_provider != "off":
        registry.use(_approval_middleware(settings, app, approval_required(mcp)))
    return app


def check_folders(settings: Settings) -> None:
    """The workdir must be an existing folder and the state dir a folder harness can make.

    Checked before anything is written, so a typo in HARNESS_WORKDIR creates
    nothing (not even ``<typo>/.harness``).
    """
    workdir = settings.workdir
    if not workdir.is_dir():
        what = "is not a folder" if workdir.exists() else "does not exist"
        raise ConfigurationError(
            f"workdir {str(workdir)!r} (HARNESS_WORKDIR) {what}; point it at an existing folder"
        )
    state = settings.resolved_state_dir
    if state.is_dir():
        return
    if state.exists():
        raise ConfigurationError(
            f"state dir {str(state)!r} (HARNESS_STATE_DIR) is a file, not a folder; "
            "point it at a folder harness may create"
        )
    ancestor = next(p for p in state.parents if p.exists())
    try:
        # Prove a folder can be made there without leaving one behind.
        Path(tempfile.mkdtemp(prefix=".harness-probe-", dir=ancestor)).rmdir()
    except OSError as exc:
        raise ConfigurationError(
            f"state dir {str(state)!r} (HARNESS_STATE_DIR) cannot be created: {ancestor} "
            f"is not a writable folder ({exc.strerror or exc}); point it at a writable folder"
        ) from None


def _approval_middleware(
    settings: Settings, app: Application, mcp_required: tuple[str, ...] = ()
) -> HumanApprovalMiddleware:
    from harness.approval import DefaultRiskPolicy
    from harness.effects import ApplyBudget, load_code_paths

    sandboxed, overlay = _bash_sandbox(settings, app)
    policy = DefaultRiskPolicy(
        required_tools=(*settings.approval_required_tools, *mcp_required),
        state_dir=app.state_dir,
        sandboxed=sandboxed,
        overlay=overlay,
        network=settings.bash_network,
        code_paths=load_code_paths(app.workdir, settings.sensitive_paths),
    )
    policy.effects.budget = ApplyBudget(settings.undo_budget, settings.apply_budget)
    return HumanApprovalMiddleware(
        policy,
        app.approvals,
        app.checkpoints,
        timeout_seconds=settings.approval_timeout_seconds,
        tracer=app.tracer,
        tool_lookup=app.registry.get,
    )


def _bash_sandbox(settings: Settings, app: Application) -> tuple[bool, bool]:
    """Whether bash calls of this app run in bwrap, and over an overlay.

    Not in bwrap: the state-dir rule is needed. Not over an overlay: the
    command-text policy judges every call, since no changeset will show its
    effects. The same cached probes the bash tool uses, so the policy and the
    tool agree; an app without bash never probes.
    """
    if "bash" not in app.enabled_tools:
        return True, False
    from harness.tools.sandbox import choose_sandbox

    choice = choose_sandbox(settings.bash_sandbox)
    return choice.bwrap is not None, choice.overlay


def open_approval_store(settings: Settings) -> ApprovalStore:
    """The approval records under ``settings``' state dir, verified as the application
    verifies them, without building a provider or tools (listing needs neither)."""
    check_folders(settings)
    workdir, state_dir = settings.workdir.resolve(), settings.resolved_state_dir
    return ApprovalStore(state_dir, _approval_signer(settings, workdir, state_dir))


def _approval_signer(settings: Settings, workdir: Path, state_dir: Path) -> ApprovalSigner:
    secret = settings.approval_key.get_secret_value() if settings.approval_key else None
    # Loaded on first use: a harness that never pauses a call never touches the key.
    return ApprovalSigner(lambda: load_approval_key(secret, workdir=workdir, state_dir=state_dir))


def _builtin_tool(name: str, settings: Settings, app: Application) -> Tool:
    from harness.tools import builtin
    from harness.tools.sandbox import ResourceLimits

    if name == "read":
        return builtin.ReadTool(state_dir=app.state_dir)
    if name == "write":
        return builtin.WriteTool(state_dir=app.state_dir, undo_budget=settings.undo_budget)
    if name == "edit":
        return builtin.EditTool(
            fuzzy_threshold=settings.edit_fuzzy_threshold,
            state_dir=app.state_dir,
            undo_budget=settings.undo_budget,
        )
    if name == "bash":
        return builtin.BashTool(
            sandbox=settings.bash_sandbox,
            network=settings.bash_network,
            env_names=settings.bash_env,
            state_dir=settings.resolved_state_dir,
            # The folder of the approval key (and decision ledger): hidden like the state dir.
            key_dir=default_key_path().parent,
            undo_budget=settings.undo_budget,
            limits=ResourceLimits(
                memory_mb=settings.bash_memory_mb,
                processes=settings.bash_processes,
                file_mb=settings.bash_file_mb,
                cpu_seconds=settings.bash_cpu_seconds,
                output_mb=settings.bash_output_mb,
            ),
        )
    if name == "explore":
        from harness.subagent import ExplorerSubagentTool, SubagentRunner

        runner = SubagentRunner(
            provider=app.provider,
            workdir=app.workdir,
            memory=app.memory,
            plans=app.plans,
            tracer=app.tracer,
            compactor=ContextCompactor(settings.context_max_chars),
            max_parallel_tools=settings.max_parallel_tools,
        )
        return ExplorerSubagentTool(runner, max_result_chars=settings.subagent_max_result_chars)
    raise ConfigurationError(f"builtin tool {name!r} is not available yet")
