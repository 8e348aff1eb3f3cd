"""``harness proxy``: record and replay the model traffic of any process."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli._root import app

__all__ = ["proxy"]

_HELP = """Serve every model API wire on 127.0.0.1 from CASSETTE, recording through --upstream.

Point the process under test at it: each SDK's base-URL variable, with /v1
for the OpenAI SDK (docs/proxy.md lists them).
Without --upstream it only replays and never forwards; a request the cassette
cannot answer gets an error naming the nearest recorded request. With
--upstream URL (the API, or `harness sim serve`) and a recording --record-mode
it forwards what the cassette cannot answer, streams the answer back and
records it. One line per request on stderr; Ctrl-C stops it and saves.
"""


@app.command("proxy", help=_HELP)
def proxy(
    cassette: Annotated[Path, typer.Option(help="The cassette file (YAML or JSON).")],
    upstream: Annotated[
        list[str] | None,
        typer.Option(
            help="Where to forward while recording: URL (every wire) or WIRE=URL; repeatable."
        ),
    ] = None,
    record_mode: Annotated[
        str,
        typer.Option(
            "--record-mode",
            help="none (replay only), once, new_episodes, all or rewrite; "
            "default: once with --upstream, none without.",
        ),
    ] = "",
    port: Annotated[
        int, typer.Option(help="Port on 127.0.0.1 (0: any free one).", min=0, max=65535)
    ] = 8766,
    profile: Annotated[
        list[str] | None,
        typer.Option(help="Per-run values to pin: codex, claude-code; repeatable."),
    ] = None,
    ignore_body_field: Annotated[
        list[str] | None, typer.Option(help="A dotted body path to ignore; repeatable.")
    ] = None,
    normalize: Annotated[
        list[str] | None,
        typer.Option(help="REGEX=PLACEHOLDER applied to every string of a body; repeatable."),
    ] = None,
) -> None:
    """Run the proxy until interrupted (see _HELP)."""
    from harness.core.errors import ConfigurationError
    from harness.proxy import ProxySpec, parse_upstreams, run_proxy
    from harness.proxy import profile as known_profile
    from harness.recording import parse_record_mode

    upstreams = parse_upstreams(upstream or [])
    mode = parse_record_mode(record_mode or ("once" if upstreams else "none"))
    if mode != "none" and not upstreams:
        raise ConfigurationError(
            f"--record-mode {mode} records, which needs --upstream URL (the API or "
            "`harness sim serve`); without an upstream use --record-mode none"
        )
    for name in profile or []:
        known_profile(name)
    rules = []
    for rule in normalize or []:
        pattern, sep, placeholder = rule.rpartition("=")
        if not sep or not pattern:
            raise ConfigurationError(f"--normalize {rule!r}: write REGEX=PLACEHOLDER")
        rules.append((pattern, placeholder))
    try:
        spec = ProxySpec(
            cassette=cassette,
            record_mode=mode,
            upstreams=upstreams,
            port=port,
            profiles=tuple(profile or ()),
            ignore_body_fields=tuple(ignore_body_field or ()),
            normalize=tuple(rules),
        )
    except ValueError as exc:
        raise ConfigurationError(f"harness proxy: {exc}") from None
    raise typer.Exit(run_proxy(spec))
