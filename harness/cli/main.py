"""The ``harness`` command: the root app, the run/health commands, every sub-command.

Only assembly happens here: the sub-command modules register on the root app
(``harness.cli.root``) when imported, and share their helpers through
``harness.cli.application`` and ``harness.cli.errors``, never through this module.
"""

from __future__ import annotations

import json
from typing import Annotated

import typer

from harness.cli.application import (
    check_session_key,
    exit_code_for,
    load_application,
    print_result,
    print_stops_once,
)
from harness.cli.progress import RunProgress
from harness.cli.root import app

__all__ = ["app", "health", "main", "run"]

_RUN_HELP = """Run PROMPT and print the answer and the stop reason.

\b
Exit codes: 0 final answer, 3 paused for approval (approval_required),
4 step limit reached (max_steps), 1 the provider or the run failed,
2 bad usage or settings.
"""


@app.command(help=_RUN_HELP)
def run(
    prompt: Annotated[str, typer.Argument(help="The task for the agent.")],
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
    progress = RunProgress.for_terminal()
    # Built (and logging set up) before the live line takes over stderr.
    application = load_application(progress=progress)
    print_stops_once()
    try:
        with progress:
            result = application.run(prompt, mode=mode, session=session, max_steps=max_steps)
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
