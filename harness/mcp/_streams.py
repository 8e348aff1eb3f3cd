"""The streams a client session talks over: a live transport, tapped, or a tape.

Each is an async context manager yielding ``(read, write)`` as the SDK's
transports do, so the ``ClientSession`` cannot tell a replay from a server:
:func:`live_streams` starts the server (stdio) or connects (streamable HTTP);
:func:`tapped` passes a live pair through a :class:`TapeRecorder`;
:func:`replayed` answers from a :class:`TapePlayer` with no process and no socket.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, TextIO

import anyio
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp.types import jsonrpc_message_adapter

from harness.mcp._cassette import TapePlayer, TapeRecorder
from harness.mcp._config import McpServerConfig, expand_env

__all__ = ["as_dict", "live_streams", "replayed", "tapped"]

Streams = tuple[Any, Any]


def as_dict(message: SessionMessage) -> dict[str, Any]:
    """The JSON-RPC message as it goes over the wire."""
    dumped: dict[str, Any] = message.message.model_dump(
        by_alias=True, mode="json", exclude_unset=True
    )
    return dumped


@asynccontextmanager
async def live_streams(
    config: McpServerConfig,
    *,
    errlog: TextIO,
    on_session_id: Callable[[str], None] | None = None,
) -> AsyncIterator[Streams]:
    """Start the server (stdio) or open its endpoint (HTTP)."""
    if config.command is not None:
        params = StdioServerParameters(
            command=expand_env(config.command),
            args=[expand_env(arg) for arg in config.args],
            env={key: expand_env(value) for key, value in config.env.items()} or None,
            cwd=config.cwd,
        )
        async with stdio_client(params, errlog=errlog) as streams:
            yield streams
        return
    import httpx2

    async def seen(response: httpx2.Response) -> None:
        session_id = response.headers.get("mcp-session-id")
        if session_id and on_session_id is not None:
            on_session_id(session_id)

    client = httpx2.AsyncClient(
        headers={key: expand_env(value) for key, value in config.headers.items()},
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [seen]},
    )
    url = expand_env(config.url or "")
    async with client, streamable_http_client(url, http_client=client) as streams:
        yield streams


@asynccontextmanager
async def tapped(streams: Streams, recorder: TapeRecorder) -> AsyncIterator[Streams]:
    """``streams`` with every message each way written to ``recorder`` first."""
    read, write = streams
    down_send, down_receive = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    up_send, up_receive = anyio.create_memory_object_stream[SessionMessage](32)

    async def up() -> None:
        async with up_receive:
            async for message in up_receive:
                recorder.client_sent(as_dict(message))
                await write.send(message)

    async def down() -> None:
        async with down_send:
            async for message in read:
                if not isinstance(message, Exception):
                    recorder.server_sent(as_dict(message))
                await down_send.send(message)

    async with anyio.create_task_group() as group:
        group.start_soon(up)
        group.start_soon(down)
        try:
            yield down_receive, up_send
        finally:
            group.cancel_scope.cancel()


@asynccontextmanager
async def replayed(player: TapePlayer) -> AsyncIterator[Streams]:
    """A server made of ``player``'s tape: each client message gets the recorded answer."""
    down_send, down_receive = anyio.create_memory_object_stream[SessionMessage | Exception](32)
    up_send, up_receive = anyio.create_memory_object_stream[SessionMessage](32)

    async def serve() -> None:
        async with up_receive, down_send:
            async for message in up_receive:
                for reply in player.answer(as_dict(message)):
                    parsed = jsonrpc_message_adapter.validate_python(reply, by_name=False)
                    await down_send.send(SessionMessage(parsed))

    async with anyio.create_task_group() as group:
        group.start_soon(serve)
        try:
            yield down_receive, up_send
        finally:
            group.cancel_scope.cancel()
