"""The ASGI app behind ``harness serve``: ``GET /health`` and the Feishu webhook.

The webhook answers within milliseconds: it verifies the request, hands the
event to ``FeishuEventAdapter.handle_event`` (which only schedules work on a
thread pool) and returns 200, so Feishu does not time out and redeliver
while an agent runs. Starlette and uvicorn are imported only here, lazily.

The endpoint faces the internet, so it bounds what it reads: a body over
``MAX_BODY_BYTES`` is refused with 413 before it is read (by its
Content-Length, or while streaming a chunked body), and ``/health`` tells a
caller without the verification token only that the server is up.
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from harness.integrations.feishu._events import FeishuEventAdapter
from harness.integrations.feishu._webhook import WebhookRejected, verify_webhook
from harness.integrations.feishu.settings import FeishuSettings

if TYPE_CHECKING:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request

    from harness.app import Application

__all__ = ["MAX_BODY_BYTES", "create_app", "make_server"]

MAX_BODY_BYTES = 1 << 20
"""The largest webhook body read (1 MiB); Feishu's events are a few KiB."""

logger = logging.getLogger("harness.feishu")


def create_app(
    application: Application,
    adapter: FeishuEventAdapter,
    settings: FeishuSettings,
    *,
    webhook: bool = True,
) -> Starlette:
    """Build the ASGI app.

    Args:
        application: answers ``/health`` (the details only for a request with
            ``Authorization: Bearer <FEISHU_VERIFICATION_TOKEN>``).
        adapter: receives every verified event.
        settings: the webhook path, verification token and encrypt key.
        webhook: mount ``POST settings.path``; False when events arrive over
            the long connection instead (then only ``/health`` is served).

    The adapter's thread pool is shut down (running work finished) when the
    app's lifespan ends.
    """
    import anyio.to_thread
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    path = settings.path if webhook else None  # None: events come over the long connection
    token = settings.verification_token.get_secret_value()
    encrypt_key = settings.encrypt_key.get_secret_value()
    if webhook and encrypt_key:
        # Import the cipher now, not on the event loop at the first event.
        import Crypto.Cipher.AES  # noqa: F401

    async def health(request: Request) -> Response:
        if not _bearer_matches(request.headers.get("authorization", ""), token):
            return JSONResponse({"status": "ok"})  # no version, provider or paths
        return JSONResponse({"status": "ok", **application.health(), "feishu_path": path})

    async def events(request: Request) -> Response:
        try:
            body = await _read_body(request)
            # Off the event loop: a hostile 1 MiB body costs up to ~0.1 s to
            # bound and decrypt, and /health must keep answering meanwhile.
            verified = await anyio.to_thread.run_sync(
                functools.partial(
                    verify_webhook,
                    body,
                    dict(request.headers),
                    verification_token=token,
                    encrypt_key=encrypt_key,
                )
            )
        except WebhookRejected as exc:
            logger.warning("rejected a webhook request (%s): %s", exc.status, exc)
            return JSONResponse({"msg": "rejected"}, status_code=exc.status)
        if verified.challenge is not None:
            return JSONResponse({"challenge": verified.challenge})
        adapter.handle_event(verified.payload)
        return JSONResponse({"msg": "success"})

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        yield
        await anyio.to_thread.run_sync(adapter.close)

    routes = [Route("/health", health, methods=["GET"])]
    if webhook:
        routes.append(Route(settings.path, events, methods=["POST"]))
    return Starlette(routes=routes, lifespan=lifespan)


async def _read_body(request: Request) -> bytes:
    """The body, refusing one over ``MAX_BODY_BYTES`` before (or while) reading it."""
    declared = request.headers.get("content-length")
    if declared is not None:
        if not declared.strip().isdigit():
            raise WebhookRejected("the Content-Length header is not a number", status=400)
        if int(declared) > MAX_BODY_BYTES:
            raise WebhookRejected(
                f"the body is {int(declared)} bytes, over the {MAX_BODY_BYTES} allowed",
                status=413,
            )
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:  # chunked: no Content-Length to check first
            raise WebhookRejected(
                f"the body is over the {MAX_BODY_BYTES} bytes allowed", status=413
            )
    return bytes(body)


def _bearer_matches(header: str, token: str) -> bool:
    scheme, _, given = header.partition(" ")
    if not token or scheme.lower() != "bearer":
        return False
    return hmac.compare_digest(given.strip().encode("utf-8"), token.encode("utf-8"))


def make_server(
    asgi_app: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    log_config: Any = "default",
) -> uvicorn.Server:
    """A uvicorn server for ``asgi_app``; call ``run()`` (or ``run(sockets=[...])``).

    ``log_config=None`` leaves logging alone (tests); "default" is uvicorn's own.
    """
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    config = uvicorn.Config(
        asgi_app,
        host=host,
        port=port,
        ws="none",  # no websocket routes; also keeps websockets' deprecation warnings away
        lifespan="on",
        log_level=log_level,
        log_config=LOGGING_CONFIG if log_config == "default" else log_config,
    )
    return uvicorn.Server(config)
