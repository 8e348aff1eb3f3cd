"""``harness cassettes check`` and ``harness sim serve`` (also ``python -m harness.simulator``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli._errors import EXIT_FAILURE, fail
from harness.cli._root import app
from harness.core.errors import ConfigurationError

__all__ = ["cassettes_app", "sim_app"]

cassettes_app = typer.Typer(
    help="Inspect recorded cassettes.", no_args_is_help=True, rich_markup_mode=None
)
sim_app = typer.Typer(
    help="The local OpenAI/Anthropic simulator.", no_args_is_help=True, rich_markup_mode=None
)

# The suffixes check_cassettes scans in a folder.
CASSETTE_SUFFIXES = (".yaml", ".yml", ".json")
# Findings about a whole file (it is not a cassette at all), not about its content.
_FILE_KINDS = ("unreadable", "malformed")


@cassettes_app.command("check")
def check(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders.")] = None,
) -> None:
    """Scan cassettes for key-like secrets and files that cannot replay; exit 1 on any finding."""
    from harness.recording import check_cassettes

    targets = paths or [Path("cassettes")]
    missing = [str(p) for p in targets if not p.exists()]
    if missing:
        raise ConfigurationError(
            f"no such file or folder: {', '.join(missing)}; give cassette files or folders "
            "(default: ./cassettes)"
        )
    suffixes = ", ".join(f"*{s}" for s in CASSETTE_SUFFIXES)
    empty = [str(p) for p in targets if p.is_dir() and not _holds_cassettes(p, CASSETTE_SUFFIXES)]
    if empty:
        # A check that read nothing must not pass as "no secrets found".
        raise ConfigurationError(f"no cassette files ({suffixes}) under {', '.join(empty)}")
    from harness.mcp import check_mcp_cassette, split_cassette_files

    mcp_files, others = split_cassette_files(targets, CASSETTE_SUFFIXES)
    findings = check_cassettes(others) if others else []
    findings += [finding for file in mcp_files for finding in check_mcp_cassette(file)]
    for finding in findings:
        typer.echo(str(finding), err=True)
    if findings:
        not_cassettes = {
            f.path for f in findings if f.interaction is None and f.kind in _FILE_KINDS
        }
        content = [f for f in findings if f.path not in not_cassettes]
        parts = []
        if not_cassettes:
            parts.append(f"{len(not_cassettes)} file(s) are not readable cassettes")
        if content:
            parts.append(f"{len(content)} finding(s) in cassettes; remove them and re-record")
        fail("; ".join(parts), code=EXIT_FAILURE)
    typer.echo(f"no secrets found in {', '.join(str(p) for p in targets)}")


def _holds_cassettes(folder: Path, suffixes: tuple[str, ...]) -> bool:
    return any(p.is_file() and p.suffix.lower() in suffixes for p in folder.rglob("*"))


@sim_app.command("serve")
def serve(
    script: Annotated[
        Path | None,
        typer.Option(help="Scenario script (YAML or JSON; default: $HARNESS_SCRIPT)."),
    ] = None,
    port: Annotated[
        int, typer.Option(help="TCP port (0: any free port).", min=0, max=65535)
    ] = 8765,
    host: Annotated[
        str, typer.Option(help="Bind address: loopback unless --allow-remote.")
    ] = "127.0.0.1",
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a --host other machines can reach (the simulator has no authentication).",
        ),
    ] = False,
    log_bodies: Annotated[
        Path | None,
        typer.Option(
            help="Append each request (method, path, status, body) to FILE as JSON lines."
        ),
    ] = None,
) -> None:
    """Serve /v1/chat/completions, /v1/responses and /v1/messages from SCRIPT until interrupted.

    Each request is logged on stderr: the path, the status and what answered it;
    with --log-bodies FILE its body too, as a JSON line in FILE.

    `python -m harness.simulator [OPTIONS]` is the same command."""
    from harness.simulator import check_host, log_requests
    from harness.simulator import serve as run_server

    warning = check_host(host, allow_remote=allow_remote)
    if warning:
        typer.echo(warning, err=True)
    log_requests()
    # The simulator's own start-up errors are one line each (missing or invalid
    # script, schema, bad or busy port): ConfigurationError, shown by the CLI.
    run_server(script, host, port, log_bodies=log_bodies)


app.add_typer(cassettes_app, name="cassettes")
app.add_typer(sim_app, name="sim")
