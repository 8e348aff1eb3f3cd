"""A live progress line for ``harness run`` on a terminal: step, activity, elapsed.

Shown on stderr only when both stdout and stderr are terminals, so piped or
captured output (scripts, CI, tests) stays byte-for-byte what it was. The line
is transient: it disappears when the run ends. rich is imported only when the
line is shown, so piped runs do not pay for it.
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.core.messages import LLMRequest, LLMResponse
    from harness.providers import LLMProvider
    from harness.tools import ToolExecutionContext, ToolExecutionResult, ToolNext

__all__ = ["RunProgress"]


class RunProgress:
    """What the run is doing now; a no-op unless ``enabled``."""

    def __init__(self, *, enabled: bool, stream: IO[str] | None = None) -> None:
        self.enabled = enabled
        self._stream = stream or sys.stderr
        self._lock = threading.Lock()
        self._step = 0
        self._activity = "starting"
        self._started = time.monotonic()
        self._live: Any = None

    @classmethod
    def for_terminal(cls) -> RunProgress:
        """Enabled when stdout and stderr are both terminals."""
        return cls(enabled=_is_tty(sys.stdout) and _is_tty(sys.stderr))

    def wrap_provider(self, provider: LLMProvider) -> LLMProvider:
        """``provider``, reporting each model call (unchanged when disabled)."""
        return _ProgressProvider(provider, self) if self.enabled else provider

    def attach(self, application: Any) -> None:
        """Report each tool call of ``application`` (nothing when disabled)."""
        if self.enabled:
            application.registry.use(self._tool_middleware)

    def update(self, *, step: int | None = None, activity: str) -> None:
        with self._lock:
            if step is not None:
                self._step = step
            self._activity = activity

    def line(self) -> str:
        """The text of the progress line right now."""
        with self._lock:
            step, activity = self._step, self._activity
        elapsed = time.monotonic() - self._started
        prefix = f"step {step} · " if step else ""
        return f"{prefix}{activity} · {elapsed:.1f}s"

    def __rich__(self) -> Any:
        from rich.text import Text

        return Text(self.line(), style="dim")

    def __enter__(self) -> RunProgress:
        if self.enabled:
            from rich.console import Console
            from rich.live import Live

            console = Console(file=self._stream)
            self._live = Live(self, console=console, transient=True, refresh_per_second=4)
            self._live.start(refresh=True)
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def _tool_middleware(self, ctx: ToolExecutionContext, nxt: ToolNext) -> ToolExecutionResult:
        self.update(step=ctx.step or None, activity=f"tool {ctx.tool_name}")
        try:
            return nxt(ctx)
        finally:
            self.update(activity=f"tool {ctx.tool_name} done")


class _ProgressProvider:
    """Passes calls through to ``inner``, telling the progress line first."""

    def __init__(self, inner: LLMProvider, progress: RunProgress) -> None:
        self.inner = inner
        self._progress = progress

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def model(self) -> str | None:
        return self.inner.model

    def complete(self, request: LLMRequest) -> LLMResponse:
        step = request.metadata.get("step") if request.metadata else None
        self._progress.update(
            step=step if isinstance(step, int) else None, activity="waiting for the model"
        )
        return self.inner.complete(request)


def _is_tty(stream: Any) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())
