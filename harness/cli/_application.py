"""What the run-like commands share: build the application, report a run.

``run``, ``approve``/``reject`` and ``serve`` build the application from the
environment the same way and print a finished run the same way.
"""

from __future__ import annotations

import logging
from typing import Any

import typer

from harness.cli._errors import (
    EXIT_APPROVAL_REQUIRED,
    EXIT_FAILURE,
    EXIT_MAX_STEPS,
    explain_validation,
)
from harness.cli._progress import RunProgress
from harness.cli._terminal import terminal_safe
from harness.core.stderr_log import log_to_stderr

__all__ = [
    "check_session_key",
    "configure_logging",
    "exit_code_for",
    "load_application",
    "print_result",
    "print_stops_once",
]

# The engine logs a provider failure as a warning; `harness run` prints it as
# its own error line, so the warning would show the same message twice.
_ENGINE_STOP_MESSAGE = "run in session %s stopped: %s"


def load_application(*, progress: RunProgress | None = None, **overrides: Any) -> Any:
    """Build the application from the environment (errors reach the one error path).

    With ``progress`` (enabled), model and tool calls update its live line.
    """
    from harness.app import build_application, build_provider
    from harness.settings import Settings

    settings = Settings.from_env(**overrides)
    configure_logging(settings.log_level)
    if progress is None or not progress.enabled:
        return build_application(settings)
    provider = progress.wrap_provider(build_provider(settings))
    application = build_application(settings, provider=provider)
    progress.attach(application)
    return application


class _DropEngineStop(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.name == "harness.engine" and record.msg == _ENGINE_STOP_MESSAGE)


def configure_logging(level: str) -> None:
    """Log harness messages to stderr at ``level`` (HARNESS_LOG_LEVEL)."""
    log_to_stderr("harness", "%(levelname)s %(name)s: %(message)s", level=level)


def print_stops_once() -> None:
    """For commands that print a run's error themselves: drop the engine's warning.

    Only `run`, `approve` and `reject` call this; `harness serve` keeps the
    warning, since nothing else reports a chat run's provider failure there.
    """
    for handler in logging.getLogger("harness").handlers:
        if not any(isinstance(f, _DropEngineStop) for f in handler.filters):
            handler.addFilter(_DropEngineStop())


def check_session_key(key: str | None) -> str | None:
    """Refuse a bad ``--session`` before anything is built, saying what is allowed."""
    from pydantic import ValidationError

    from harness.session import SessionRef

    if key is None:
        return key
    try:
        SessionRef(key=key)
    except ValidationError as exc:
        raise typer.BadParameter(explain_validation(exc)) from None
    return key


def exit_code_for(result: Any) -> int:
    """The documented exit code of a finished run (see ``harness run --help``)."""
    reason = result.stop_reason.value
    if reason == "final":
        return 0
    if reason == "approval_required":
        return EXIT_APPROVAL_REQUIRED
    if reason == "max_steps":
        return EXIT_MAX_STEPS
    return EXIT_FAILURE


def print_result(result: Any, *, as_json: bool) -> None:
    """The answer and the stop reason (or the whole RunResult); the error once, on stderr."""
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        if result.text:
            typer.echo(terminal_safe(result.text))
        typer.echo(f"[stop_reason: {result.stop_reason.value}, steps: {result.steps}]")
        if result.approval_id:
            typer.echo(
                f"[approval required: harness approve {result.approval_id}  |  "
                f"harness reject {result.approval_id} REASON]"
            )
        if result.trace_path:
            typer.echo(f"[trace: {result.trace_path}]")
    if result.error:
        typer.echo(f"error: {terminal_safe(result.error)}", err=True)
