"""The ``harness`` command: the root app, the run/health commands, every sub-command.

Only assembly happens here: the sub-command modules register on the root app
(``harness.cli._root``) when imported, and share their helpers through
``harness.cli._application`` and ``harness.cli._errors``, never through this module.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated

import typer

from harness.cli._application import (
    check_session_key,
    exit_code_for,
    load_application,
    print_result,
    print_stops_once,
)
from harness.cli._progress import RunProgress
from harness.cli._root import app

__all__ = ["app", "health", "main", "run"]

_RUN_HELP = """Run PROMPT and print the answer and the stop reason.

PROMPT `-` reads the task from stdin; --prompt-file FILE reads it from a file
(for long prompts: no quoting, no argument length limit).

\b
Exit codes: 0 final answer, 3 paused for approval (approval_required),
4 step limit reached (max_steps), 1 the provider or the run failed,
2 bad usage or settings.
"""


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
    from harness.approval.keyfile import default_key_path
    from harness.tools import ToolPolicyMiddleware
    from harness.tools.sandbox import choose_sandbox, unsandboxed_status

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
    if choice.bwrap is None and not choice.refused:
        hidden = (settings.resolved_state_dir, default_key_path().parent)
        refuses, status = unsandboxed_status(settings.workdir, hidden, os.environ)
        info["bash_sandbox"] = "refused" if refuses else "none"
        info["bash_sandbox_detail"] += f"; {status}"
    if as_json:
        typer.echo(json.dumps(info, indent=2))
        return
    for key, value in info.items():
        shown = (", ".join(value) or "(none)") if isinstance(value, list) else value
        typer.echo(f"{key}: {shown}")


def _register_subcommands() -> None:
    from harness.cli import (
        _approval_cmd,
        _eval_cmd,
        _eval_prune_cmd,
        _proxy_cmd,
        _serve_cmd,
        _tools_cmd,
        _trace_cmd,
        _undo_cmd,
        _view_cmd,
    )

    # These modules register their commands on `app` (_eval_prune_cmd on eval_app) when imported.
    del _approval_cmd, _eval_prune_cmd, _proxy_cmd, _serve_cmd, _tools_cmd, _undo_cmd, _view_cmd
    app.add_typer(_eval_cmd.eval_app, name="eval")
    app.add_typer(_trace_cmd.trace_app, name="trace")


_register_subcommands()


def main() -> None:
    """Console entry point (also ``python -m harness``: the same name in messages)."""
    app(prog_name="harness")
