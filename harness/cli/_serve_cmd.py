"""``harness serve``: the HTTP server with the Feishu approval adapter."""

from __future__ import annotations

import importlib.util
from enum import StrEnum
from typing import Annotated

import typer

from harness.cli._application import load_application
from harness.cli._errors import fail
from harness.cli._ports import check_port_free
from harness.cli._root import app

__all__ = ["FeishuMode", "serve"]

_EXTRA_MODULES = ("lark_oapi", "starlette", "uvicorn")
_INSTALL_HINT = 'pip install "harness-toolkit[feishu]"'


class FeishuMode(StrEnum):
    """How Feishu events arrive (an Enum, so every supported typer shows the choices)."""

    HTTP = "http"
    WS = "ws"


def _check_extra() -> None:
    # find_spec looks for the packages without importing them (lark-oapi is slow to import).
    missing = [name for name in _EXTRA_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        fail(f"harness serve needs {', '.join(missing)}; install them with: {_INSTALL_HINT}")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port (1-65535).", min=1, max=65535)] = 8000,
    feishu_path: Annotated[
        str | None,
        typer.Option(help="Webhook path (HARNESS_FEISHU_PATH; default /api/events/feishu)."),
    ] = None,
    feishu_mode: Annotated[
        FeishuMode,
        typer.Option(help="Receive events by HTTP webhook or by Feishu's long connection."),
    ] = FeishuMode.HTTP,
) -> None:
    """Serve GET /health and Feishu events: chat messages run the agent, /approve and
    /reject decide paused runs (FEISHU_APP_ID, FEISHU_APP_SECRET,
    FEISHU_VERIFICATION_TOKEN, FEISHU_ENCRYPT_KEY, HARNESS_FEISHU_APPROVERS)."""
    _check_extra()
    from harness.integrations.feishu import (
        FeishuEventAdapter,
        FeishuSettings,
        LarkMessenger,
        create_app,
        make_server,
        start_long_connection,
    )

    webhook = feishu_mode is FeishuMode.HTTP
    feishu = FeishuSettings.from_env(path=feishu_path)
    feishu.require(webhook=webhook)
    check_port_free(host, port)
    application = load_application()
    if application.settings.approval_provider == "off":
        typer.echo(
            "note: HARNESS_APPROVAL_PROVIDER=off, so no tool call waits for approval", err=True
        )
    try:
        messenger = LarkMessenger(
            feishu.app_id, feishu.app_secret.get_secret_value(), base_url=feishu.base_url
        )
        adapter = FeishuEventAdapter(application, messenger, approvers=feishu.approvers)
        asgi = create_app(application, adapter, feishu, webhook=webhook)
        if not webhook:
            start_long_connection(adapter, feishu)
        events = feishu.path if webhook else "long connection"
        typer.echo(f"harness serve: http://{host}:{port}/health, Feishu events: {events}", err=True)
        level = application.settings.log_level.lower()
        make_server(asgi, host=host, port=port, log_level=level).run()
    finally:
        application.close()
