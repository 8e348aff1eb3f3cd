"""Top-level typer app and the run/health commands."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Any

import typer

from harness.cli.errors import (
    EXIT_APPROVAL_REQUIRED,
    EXIT_FAILURE,
    EXIT_MAX_STEPS,
    HarnessGroup,
    fail,
)
from harness.cli.progress import RunProgress

__all__ = [
    "app",
    "check_session_key",
    "configure_logging",
    "exit_code_for",
    "fail",
    "load_application",
    "main",
    "print_result",
    "print_stops_once",
]

_RUN_HELP = """Run PROMPT and print the answer and the stop reason.

PROMPT `-` reads the task from stdin; --prompt-file FILE reads it from a file
(for long prompts: no quoting, no argument length limit).

\b
Exit codes: 0 final answer, 3 paused for approval (approval_required),
4 step limit reached (max_steps), 1 the provider or the run failed,
2 bad usage or settings.
"""

_APP_HELP = """Run, trace, approve and evaluate LLM agents; replay them offline.

\b
Errors print one `error:` line on stderr (HARNESS_DEBUG=1 shows the traceback).
Exit codes: 0 success, 1 failure, 2 bad usage or settings,
3 run paused for approval, 4 step limit reached, 130 interrupted.
"""

app = typer.Typer(
    name="harness",
    cls=HarnessGroup,
    help=_APP_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: rich formatting costs ~300 ms of imports on every call.
    rich_markup_mode=None,
)

# The engine logs a provider failure as a warning; `harness run` prints it as
# its own error line, so the warning would show the same message twice.
_ENGINE_STOP_MESSAGE = "run in session %s stopped: %s"


def _show_version(value: bool) -> None:
    if value:
        from harness import __version__

        typer.echo(f"harness {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Print the version and exit.", callback=_show_version, is_eager=True
        ),
    ] = False,
) -> None:
    """Options of the harness command itself (see _APP_HELP)."""


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
    logger = logging.getLogger("harness")
    logger.setLevel(level)
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)


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

    from harness.cli.errors import explain_validation
    from harness.session.ref import SessionRef

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
            typer.echo(result.text)
        typer.echo(f"[stop_reason: {result.stop_reason.value}, steps: {result.steps}]")
        if result.approval_id:
            typer.echo(
                f"[approval required: harness approve {result.approval_id}  |  "
                f"harness reject {result.approval_id} REASON]"
            )
        if result.trace_path:
            typer.echo(f"[trace: {result.trace_path}]")
    if result.error:
        typer.echo(f"error: {result.error}", err=True)


def _read_prompt(prompt: str | None, prompt_file: Path | None) -> str:
    """The task from the argument, from stdin (``-``) or from ``--prompt-file``: one of them."""
    import sys

    from harness.core.errors import ConfigurationError

    if prompt is not None and prompt_file is not None:
        raise ConfigurationError("give the task once: as PROMPT or with --prompt-file, not both")
    if prompt_file is not None:
        try:
            text = prompt_file.read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigurationError(
                f"cannot read --prompt-file {prompt_file}: {exc.strerror or exc}; "
                "give a readable text file"
            ) from None
    elif prompt == "-":
        if sys.stdin is None:
            raise ConfigurationError("PROMPT - reads stdin, but there is none; pass the task")
        if sys.stdin.isatty():
            typer.echo("reading the task from stdin; end it with Ctrl-D", err=True)
        text = sys.stdin.read()
    elif prompt is None:
        raise ConfigurationError(
            "no task given: harness run 'TEXT', harness run - (read stdin), "
            "or harness run --prompt-file FILE"
        )
    else:
        return prompt
    # `echo task | harness run -` is the same task as `harness run task`.
    return text.rstrip("\r\n")


@app.command(help=_RUN_HELP)
def run(
    prompt: Annotated[
        str | None,
        typer.Argument(help="The task for the agent; - reads it from stdin."),
    ] = None,
    prompt_file: Annotated[
        Path | None,
        typer.Option("--prompt-file", help="Read the task from this UTF-8 text file."),
    ] = None,
    mode: Annotated[str, typer.Option(help="act, plan, think or plan-act.")] = "act",
    session: Annotated[
        str,
        typer.Option(
            help="Session key (memory, traces): letters, digits and _ . : -",
            callback=check_session_key,
        ),
    ] = "cli",
    max_steps: Annotated[int | None, typer.Option(help="Step limit.", min=1)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full RunResult.")] = False,
) -> None:
    task = _read_prompt(prompt, prompt_file)
    progress = RunProgress.for_terminal()
    # Built (and logging set up) before the live line takes over stderr.
    application = load_application(progress=progress)
    print_stops_once()
    try:
        with progress:
            result = application.run(task, mode=mode, session=session, max_steps=max_steps)
    finally:
        application.close()
    print_result(result, as_json=as_json)
    code = exit_code_for(result)
    if code:
        raise typer.Exit(code)


@app.command()
def health(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print provider, model, state dir, the tools the model may call and how bash would run."""
    from harness.tools.policy import ToolPolicyMiddleware
    from harness.tools.sandbox import choose_sandbox

    application = load_application()
    info = application.health()
    application.close()
    settings = application.settings
    policy = ToolPolicyMiddleware(settings.tool_allowlist, settings.tool_denylist)
    refused = [name for name in info["enabled_tools"] if not policy.allows(name)]
    # What the model can actually run: enabled, and not refused by allow/deny lists.
    info["effective_tools"] = [name for name in info["enabled_tools"] if policy.allows(name)]
    info["refused_tools"] = refused
    choice = choose_sandbox(settings.bash_sandbox)
    info["bash_sandbox"] = "refused" if choice.refused else choice.label
    network = "on" if settings.bash_network and choice.bwrap else "off"
    info["bash_sandbox_detail"] = (
        f"{choice.describe()}, network {network}" if choice.bwrap else choice.describe()
    )
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        shown = (", ".join(value) or "(none)") if isinstance(value, list) else value
        typer.echo(f"{key}: {shown}")


def _register_subcommands() -> None:
    from harness.cli import approval_cmd, eval_cmd, serve_cmd, tools_cmd, trace_cmd, view_cmd

    # These modules register their commands on `app` when imported.
    del approval_cmd, serve_cmd, tools_cmd, view_cmd
    app.add_typer(eval_cmd.eval_app, name="eval")
    app.add_typer(trace_cmd.trace_app, name="trace")


_register_subcommands()


def main() -> None:
    """Console entry point (also ``python -m harness``: the same name in messages)."""
    app(prog_name="harness")
