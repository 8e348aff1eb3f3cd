"""``harness cassettes check`` and ``harness sim serve``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli.main import app

__all__ = ["cassettes_app", "sim_app"]

cassettes_app = typer.Typer(
    help="Inspect recorded cassettes.", no_args_is_help=True, rich_markup_mode=None
)
sim_app = typer.Typer(
    help="The local OpenAI/Anthropic simulator.", no_args_is_help=True, rich_markup_mode=None
)


@cassettes_app.command("check")
def check(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders.")] = None,
) -> None:
    """Scan cassettes for key-like secrets; exit 1 on any finding."""
    from harness.recording import check_cassettes

    targets = paths or [Path("cassettes")]
    findings = check_cassettes(targets)
    for finding in findings:
        typer.echo(str(finding), err=True)
    if findings:
        typer.echo(f"{len(findings)} finding(s); remove them and re-record", err=True)
        raise typer.Exit(1)
    typer.echo(f"no secrets found in {', '.join(str(p) for p in targets)}")


@sim_app.command("serve")
def serve(
    script: Annotated[Path, typer.Option(help="Scenario script (YAML or JSON).")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 8765,
    host: Annotated[str, typer.Option(help="Bind address (loopback).")] = "127.0.0.1",
) -> None:
    """Serve /v1/chat/completions and /v1/messages from SCRIPT until interrupted."""
    from harness.simulator import serve_or_exit as run_server

    run_server(script, host, port)


app.add_typer(cassettes_app, name="cassettes")
app.add_typer(sim_app, name="sim")
