"""McpServers: the application's MCP sessions, on an event-loop thread of their own.

harness's runtime is synchronous (a tool's ``run`` returns its observation) and
the ``mcp`` SDK is async (anyio), so the application owns one daemon thread
running one asyncio loop. Each server is *held* by one task on it, which enters
the transport and the ``ClientSession`` and leaves them in the same task, as
anyio's cancel scopes require; tool calls are submitted to the loop from the
tool threads and waited for with the server's ``timeout``.

Started once per application (``start``), stopped with it (``close``): closing
ends each session, which closes a stdio server's stdin and, if it does not exit,
terminates its process tree (the SDK's shutdown), then stops the loop. A server
that fails to start is left out with one line saying why (``problems``); a call
that times out, fails or finds the server gone raises :class:`McpCallError`,
which the tool turns into an error observation.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import tempfile
import threading
from collections.abc import Callable, Coroutine
from contextlib import AbstractAsyncContextManager, AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, TextIO, TypeVar, cast

from harness.core.errors import CassetteError, ToolError
from harness.mcp._cassette import (
    McpCassette,
    McpCassetteMiss,
    McpMiss,
    TapePlayer,
    TapeRecorder,
    load_cassette,
    now_stamp,
    save_cassette,
)
from harness.mcp._config import McpConfig, McpServerConfig

__all__ = ["McpCallError", "McpServers", "McpToolInfo"]

logger = logging.getLogger("harness.mcp")

T = TypeVar("T")

# Time for the sessions to end (and stdio servers to be stopped) at close: the
# SDK's own shutdown waits at most ~6 s for a server that ignores its closed stdin.
_CLOSE_SECONDS = 15.0
# Beyond a call's own timeout (which the SDK enforces), before the thread gives up.
_CALL_MARGIN_SECONDS = 5.0
_RECORDING_MODES = frozenset({"new_episodes", "all", "rewrite"})


class McpCallError(ToolError):
    """A call that did not produce a result: timeout, JSON-RPC error, server gone."""


@dataclass(frozen=True, slots=True)
class McpToolInfo:
    """One tool a server listed."""

    server: str
    name: str
    description: str
    input_schema: dict[str, Any]
    read_only_hint: bool | None


@dataclass
class _Connection:
    name: str
    config: McpServerConfig
    session: Any = None
    tools: list[McpToolInfo] = field(default_factory=list)
    problem: str | None = None
    protocol_version: str | None = None
    session_id: str | None = None
    recorder: TapeRecorder | None = None
    player: TapePlayer | None = None
    errlog: TextIO | None = None
    closing: asyncio.Event | None = None
    held: concurrent.futures.Future[None] | None = None


class McpServers:
    """The MCP servers of one application: started together, called, closed together."""

    def __init__(self, config: McpConfig) -> None:
        self.config = config
        self._connections = {
            name: _Connection(name, server) for name, server in config.enabled().items()
        }
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._cassette: McpCassette | None = None
        self._recording = False
        self._closed = False

    # -- lifecycle -------------------------------------------------------------

    def start(self) -> None:
        """Connect every server (concurrently) and list its tools.

        Raises:
            CassetteError: replaying with no cassette, or none for a server.
        """
        self._choose_source()
        if not self._connections:
            return
        loop = self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=loop.run_forever, name="harness-mcp", daemon=True)
        self._thread.start()
        readies: list[tuple[_Connection, concurrent.futures.Future[None]]] = []
        for connection in self._connections.values():
            ready: concurrent.futures.Future[None] = concurrent.futures.Future()
            connection.held = self._submit(self._hold(connection, ready))
            readies.append((connection, ready))
        for connection, ready in readies:
            wait = connection.config.startup_timeout + _CALL_MARGIN_SECONDS
            try:
                ready.result(wait)
            except concurrent.futures.TimeoutError:
                connection.problem = self._failed(connection, "it did not start in time")
            except Exception as exc:
                connection.problem = self._failed(connection, _reason(exc))
            if connection.problem is not None:
                logger.warning("%s", connection.problem)

    def _choose_source(self) -> None:
        recording = self.config.recording
        if recording is None:
            return
        path = recording.cassette
        mode = recording.record_mode
        if mode in _RECORDING_MODES or (mode == "once" and not path.exists()):
            self._recording = True
            self._cassette = McpCassette(recorded_at=now_stamp())
            for connection in self._connections.values():
                server = connection.config
                connection.recorder = TapeRecorder(server.transport, server.program)
            return
        if mode == "none" and not path.exists():
            raise CassetteError(
                f"no MCP cassette at {path}; record it once with --record-mode=once "
                "(the MCP servers then run live)"
            )
        cassette = self._cassette = load_cassette(path)
        for connection in self._connections.values():
            tape = cassette.servers.get(connection.name)
            if tape is None:
                raise CassetteError(
                    f"MCP cassette {path} has no recording of server {connection.name!r} "
                    f"(it holds {', '.join(sorted(cassette.servers)) or 'none'}); re-record "
                    "with --record-mode=rewrite"
                )
            connection.player = TapePlayer(connection.name, tape, cassette=path)

    def close(self) -> None:
        """End every session, stop every server, save a recording; idempotent."""
        if self._closed:
            return
        self._closed = True
        loop = self._loop
        if loop is not None:
            for connection in self._connections.values():
                if connection.closing is not None:
                    loop.call_soon_threadsafe(connection.closing.set)
            for connection in self._connections.values():
                if connection.held is not None:
                    try:
                        connection.held.result(_CLOSE_SECONDS)
                    except Exception:  # already reported when it failed
                        logger.debug("MCP server %s ended badly", connection.name, exc_info=True)
            loop.call_soon_threadsafe(loop.stop)
            if self._thread is not None:
                self._thread.join(_CLOSE_SECONDS)
            if not loop.is_running():
                loop.close()
        for connection in self._connections.values():
            if connection.errlog is not None:
                connection.errlog.close()
        self._save()

    def _save(self) -> None:
        recording = self.config.recording
        if not self._recording or self._cassette is None or recording is None:
            return
        for connection in self._connections.values():
            if connection.recorder is not None and connection.problem is None:
                self._cassette.servers[connection.name] = connection.recorder.tape
        save_cassette(self._cassette, recording.cassette)

    def __enter__(self) -> McpServers:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- what is there -----------------------------------------------------------

    @property
    def tools(self) -> list[McpToolInfo]:
        return [tool for c in self._connections.values() for tool in c.tools]

    @property
    def problems(self) -> list[str]:
        """One line for each server that could not be used."""
        return [c.problem for c in self._connections.values() if c.problem]

    @property
    def misses(self) -> list[McpMiss]:
        """Replayed requests the cassette had no answer for."""
        return [m for c in self._connections.values() if c.player for m in c.player.misses]

    @property
    def replaying(self) -> bool:
        return any(c.player is not None for c in self._connections.values())

    def check_misses(self) -> None:
        """Raise the misses of a replay, if any (the plugin fails the test with it)."""
        misses = self.misses
        if misses:
            raise McpCassetteMiss(misses)

    def server(self, name: str) -> McpServerConfig:
        return self._connections[name].config

    def trace_attributes(self, name: str) -> dict[str, Any]:
        """OTel MCP attributes of calls to server ``name``."""
        connection = self._connections[name]
        attributes: dict[str, Any] = {
            "mcp.method.name": "tools/call",
            "network.transport": "pipe" if connection.config.transport == "stdio" else "tcp",
            "mcp_server": name,
        }
        if connection.protocol_version:
            attributes["mcp.protocol.version"] = connection.protocol_version
        if connection.session_id:
            attributes["mcp.session.id"] = connection.session_id
        if connection.player is not None:
            attributes["mcp_replayed"] = True
        return attributes

    # -- calls -------------------------------------------------------------------

    def call_tool(self, server: str, tool: str, arguments: dict[str, Any]) -> Any:
        """Call ``tool`` of ``server``; the SDK's ``CallToolResult``.

        Raises:
            McpCallError: the server is not running, did not answer within its
                ``timeout``, or answered with a JSON-RPC error.
        """
        connection = self._connections[server]
        if connection.problem is not None or connection.session is None:
            raise McpCallError(
                connection.problem or f"MCP server {server!r} is not running",
                error_type="mcp_unavailable",
            )
        timeout = connection.config.timeout
        session = connection.session
        future = self._submit(session.call_tool(tool, arguments, read_timeout_seconds=timeout))
        try:
            return future.result(timeout + _CALL_MARGIN_SECONDS)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise self._timed_out(connection, tool) from None
        except Exception as exc:
            raise self._call_failed(connection, tool, exc) from None

    def _timed_out(self, connection: _Connection, tool: str) -> McpCallError:
        seconds = f"{connection.config.timeout:g}"
        line = (
            f"MCP server {connection.name!r} did not answer {tool!r} within {seconds} s "
            f"(its 'timeout' in {self.config.source})"
        )
        logger.warning("%s", line)
        return McpCallError(line, error_type="mcp_timeout")

    def _call_failed(self, connection: _Connection, tool: str, exc: Exception) -> McpCallError:
        from mcp.shared.exceptions import MCPError
        from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        if isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT:
            return self._timed_out(connection, tool)
        if isinstance(exc, MCPError) and exc.code != CONNECTION_CLOSED:
            line = (
                f"MCP server {connection.name!r} answered {tool!r} with error {exc.code}: "
                f"{exc.message}"
            )
            logger.warning("%s", line.splitlines()[0])
            return McpCallError(line, error_type="mcp_error")
        if not isinstance(exc, MCPError) and not _connection_lost(exc):
            # An answer the SDK refused (a result that breaks the tool's output schema):
            # the server is still there, the call failed.
            line = (
                f"MCP server {connection.name!r} answered {tool!r} with a result that "
                f"cannot be used: {_reason(exc)}"
            )
            logger.warning("%s", line)
            return McpCallError(line, error_type="mcp_bad_result")
        gone = self._failed(connection, f"the connection closed during {tool!r} ({_reason(exc)})")
        connection.problem = gone
        logger.warning("%s", gone)
        return McpCallError(gone, error_type="mcp_server_gone")

    def _failed(self, connection: _Connection, reason: str) -> str:
        server = connection.config
        tail = _tail(connection.errlog)
        said = f"; it said: {tail}" if tail else ""
        verb = "failed to start" if connection.session is None else "stopped"
        return (
            f"MCP server {connection.name!r} ({server.transport}: {server.target}) {verb}: "
            f"{reason}{said}"
        )

    # -- the loop ----------------------------------------------------------------

    def _submit(self, coroutine: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop)

    async def _hold(self, connection: _Connection, ready: concurrent.futures.Future[None]) -> None:
        """Open the session, report ready, wait for close, close it: all in one task."""
        import anyio
        from mcp import ClientSession

        connection.closing = asyncio.Event()
        try:
            async with AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._streams(connection))
                session = await stack.enter_async_context(ClientSession(*streams))
                with anyio.fail_after(connection.config.startup_timeout):
                    initialized = await session.initialize()
                    listed = await _list_tools(session)
                connection.protocol_version = str(initialized.protocol_version)
                connection.tools = [_info(connection.name, tool) for tool in listed]
                connection.session = session
                ready.set_result(None)
                await connection.closing.wait()
        except BaseException as exc:
            if not ready.done():
                ready.set_exception(_leaf(exc))
            elif not isinstance(exc, asyncio.CancelledError | GeneratorExit):
                logger.debug("MCP server %s: session ended: %r", connection.name, exc)

    def _streams(self, connection: _Connection) -> AbstractAsyncContextManager[Any]:
        from harness.mcp._streams import live_streams, replayed, tapped

        if connection.player is not None:
            return replayed(connection.player)
        # Closed in ``close``; the server's stderr, for the line that says why it failed.
        errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        connection.errlog = cast(TextIO, errlog)

        def seen(session_id: str) -> None:
            connection.session_id = session_id

        live = live_streams(connection.config, errlog=connection.errlog, on_session_id=seen)
        if connection.recorder is None:
            return live
        return _chained(live, connection.recorder, tapped)


def _chained(
    live: AbstractAsyncContextManager[Any],
    recorder: TapeRecorder,
    tap: Callable[[Any, TapeRecorder], AbstractAsyncContextManager[Any]],
) -> AbstractAsyncContextManager[Any]:
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def both() -> Any:
        async with live as streams, tap(streams, recorder) as inner:
            yield inner

    return both()


async def _list_tools(session: Any) -> list[Any]:
    tools: list[Any] = []
    cursor: str | None = None
    while True:
        if cursor is None:
            page = await session.list_tools()
        else:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        tools.extend(page.tools)
        cursor = page.next_cursor
        if not cursor:
            return tools


def _info(server: str, tool: Any) -> McpToolInfo:
    annotations = tool.annotations
    return McpToolInfo(
        server=server,
        name=str(tool.name),
        description=str(tool.description or tool.title or tool.name),
        input_schema=dict(tool.input_schema or {"type": "object"}),
        read_only_hint=None if annotations is None else annotations.read_only_hint,
    )


def _connection_lost(exc: BaseException) -> bool:
    import anyio

    lost = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
    return isinstance(_leaf(exc), lost)


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def _reason(exc: BaseException) -> str:
    exc = _leaf(exc)
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found ({exc.filename or exc})"
    if isinstance(exc, TimeoutError):
        return "it did not answer initialize and tools/list in time (its 'startupTimeout')"
    if isinstance(exc, CassetteError):
        return str(exc)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _tail(errlog: TextIO | None, limit: int = 200) -> str:
    """The last line the server wrote to stderr, for a failure message."""
    if errlog is None or errlog.closed:
        return ""
    try:
        errlog.flush()
        errlog.seek(0)
        lines = [line.strip() for line in errlog.read().splitlines() if line.strip()]
    except (OSError, ValueError):
        return ""
    if not lines:
        return ""
    last = lines[-1]
    return last if len(last) <= limit else last[: limit - 1] + "…"
