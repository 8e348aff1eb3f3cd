"""Top-level typer app and the run/health commands."""

from __future__ import annotations

import json
import logging
import sys
from typing import Annotated, Any, NoReturn

import typer

from harness.core.errors import HarnessError

__all__ = ["app", "configure_logging", "fail", "load_application", "main"]

app = typer.Typer(
    name="harness",
    help="Run, trace, approve and evaluate LLM agents; replay them offline.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Plain click help: rich formatting costs ~300 ms of imports on every call.
    rich_markup_mode=None,
)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error and exit non-zero."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def load_application(**overrides: Any) -> Any:
    """Build the application from the environment, turning errors into one line."""
    from harness.app import build_application
    from harness.settings import Settings

    try:
        settings = Settings.from_env(**overrides)
        configure_logging(settings.log_level)
        return build_application(settings)
    except HarnessError as exc:
        fail(str(exc))


def configure_logging(level: str) -> None:
    """Log harness messages to stderr at ``level`` (HARNESS_LOG_LEVEL)."""
    logger = logging.getLogger("harness")
    logger.setLevel(level)
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        logger.addHandler(handler)


@app.command()
def run(
    prompt: Annotated[str, typer.Argument(help="The task for the agent.")],
    mode: Annotated[str, typer.Option(help="act, plan, think or plan-act.")] = "act",
    session: Annotated[str, typer.Option(help="Session key (memory, traces).")] = "cli",
    max_steps: Annotated[int | None, typer.Option(help="Step limit.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full RunResult.")] = False,
) -> None:
    """Run PROMPT and print the answer and the stop reason."""
    application = load_application()
    try:
        result = application.run(prompt, mode=mode, session=session, max_steps=max_steps)
    except HarnessError as exc:
        fail(str(exc))
    finally:
        application.close()
    if as_json:
        typer.echo(result.model_dump_json(indent=2))
    else:
        typer.echo(result.text)
        typer.echo(f"[stop_reason: {result.stop_reason.value}, steps: {result.steps}]")
        if result.approval_id:
            typer.echo(
                f"[approval required: harness approve {result.approval_id}  |  "
                f"harness reject {result.approval_id} REASON]"
            )
        if result.trace_path:
            typer.echo(f"[trace: {result.trace_path}]")
    if result.stop_reason.value == "provider_error":
        typer.echo(f"error: {result.error}", err=True)
        raise typer.Exit(1)


@app.command()
def health(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Print provider, model, state dir, enabled tools and how bash would run."""
    from harness.tools.sandbox import choose_sandbox

    application = load_application()
    info = application.health()
    application.close()
    settings = application.settings
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
        shown = ", ".join(value) if isinstance(value, list) else value
        typer.echo(f"{key}: {shown}")


def _register_subcommands() -> None:
    from harness.cli import approval_cmd, eval_cmd, serve_cmd, tools_cmd, trace_cmd, view_cmd

    # These modules register their commands on `app` when imported.
    del approval_cmd, eval_cmd, serve_cmd, tools_cmd, view_cmd
    app.add_typer(trace_cmd.trace_app, name="trace")


_register_subcommands()


def main() -> None:
    """Console entry point."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)
