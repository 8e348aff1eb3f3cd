"""A stand-in MCP server over stdio: replays a cassette, or relays to the real one and records.

``python -m harness.mcp.replay CASSETTE --server NAME [--misses FILE]`` answers
each JSON-RPC line on stdin from the recording of server NAME (no server
process); a request it has no answer for gets a JSON-RPC error naming the miss,
and the miss is appended to FILE (JSON lines) for the test to fail with.

``python -m harness.mcp.replay CASSETTE --server NAME --record -- COMMAND ARGS...``
starts the real server, passes every line both ways, and keeps CASSETTE (a
cassette of that one server) written after every message, so the recording is
whole however the client ends the process.

``python -m harness.mcp.replay CASSETTE --server NAME --live --changes FILE -- COMMAND ARGS...``
(``--harness-tools live``) starts the real server and passes every line both
ways, comparing each ``tools/call`` answer with the recorded answer to the same
request; a difference is appended to FILE (JSON lines, :class:`ResultChange`).

The ``mcp_cassette`` fixture rewrites an agent's server command to one of these.
Only the standard library, pydantic and harness's cassette code are imported:
it starts in the time a replayed call should cost.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from harness.mcp._cassette import (
    McpCassette,
    McpMiss,
    TapePlayer,
    TapeRecorder,
    load_cassette,
    now_stamp,
    save_cassette,
)
from harness.mcp._live import LiveComparer, RelayObserver, ResultChange

__all__ = ["live_stdio", "main", "miss_record", "record_stdio", "relay_stdio", "replay_stdio"]

# After its stdin closes, time for the real server to exit before it is killed:
# under the SDK's own 2 s, so the relay is gone before the client kills it.
_EXIT_SECONDS = 1.5


def miss_record(miss: McpMiss) -> dict[str, Any]:
    """A miss as one JSON line of the misses file."""
    return {
        "server": miss.server,
        "method": miss.method,
        "params": miss.params,
        "nearest": None if miss.nearest is None else miss.nearest.model_dump(mode="json"),
        "difference": miss.difference,
        "cassette": None if miss.cassette is None else str(miss.cassette),
    }


def replay_stdio(
    cassette: Path,
    server: str,
    misses: Path | None,
    stdin: IO[bytes],
    stdout: IO[bytes],
    calls: Path | None = None,
) -> int:
    recorded = load_cassette(cassette)
    tape = recorded.servers.get(server)
    if tape is None:
        held = ", ".join(sorted(recorded.servers)) or "none"
        print(
            f"MCP cassette {cassette} has no recording of server {server!r} (it holds {held}); "
            "re-record with --record-mode=rewrite",
            file=sys.stderr,
        )
        return 2
    player = TapePlayer(server, tape, cassette=cassette)
    for line in stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        before, answered = len(player.misses), player.calls
        for reply in player.answer(message):
            stdout.write(json.dumps(reply, ensure_ascii=False).encode("utf-8") + b"\n")
        stdout.flush()
        if calls is not None and player.calls > answered:
            with calls.open("a", encoding="utf-8") as file:
                file.write(server + "\n")
        if misses is not None and len(player.misses) > before:
            with misses.open("a", encoding="utf-8") as file:
                for miss in player.misses[before:]:
                    file.write(json.dumps(miss_record(miss)) + "\n")
    return 0


def record_stdio(
    cassette: Path, server: str, command: Sequence[str], stdin: IO[bytes], stdout: IO[bytes]
) -> int:
    recorder = TapeRecorder("stdio", Path(command[0]).name)  # arguments may hold a key
    lock = threading.Lock()

    def save() -> None:
        with lock:
            document = McpCassette(recorded_at=now_stamp(), servers={server: recorder.tape})
            save_cassette(document, cassette)

    return relay_stdio(command, stdin, stdout, recorder, after_each=save)


def live_stdio(
    cassette: Path,
    server: str,
    command: Sequence[str],
    stdin: IO[bytes],
    stdout: IO[bytes],
    changes: Path | None = None,
    calls: Path | None = None,
) -> int:
    """Relay to the real server, comparing its ``tools/call`` answers with the recording."""
    recorded = load_cassette(cassette)
    tape = recorded.servers.get(server)
    if tape is None:
        held = ", ".join(sorted(recorded.servers)) or "none"
        print(
            f"MCP cassette {cassette} has no recording of server {server!r} (it holds {held}); "
            "record it first",
            file=sys.stderr,
        )
        return 2

    def changed(change: ResultChange) -> None:
        if changes is not None:
            with changes.open("a", encoding="utf-8") as file:
                file.write(change.to_json() + "\n")

    def called() -> None:
        if calls is not None:
            with calls.open("a", encoding="utf-8") as file:
                file.write(server + "\n")

    comparer = LiveComparer(server, tape, on_change=changed, on_call=called)
    return relay_stdio(command, stdin, stdout, comparer)


def relay_stdio(
    command: Sequence[str],
    stdin: IO[bytes],
    stdout: IO[bytes],
    observer: RelayObserver,
    after_each: Callable[[], None] | None = None,
) -> int:
    """Start ``command`` and pass every line both ways, each one shown to ``observer``
    (then ``after_each``) before it is passed on."""
    try:
        child = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:  # the client sees the stand-in exit; stderr says why
        print(f"the MCP server {command[0]!r} could not be started: {exc}", file=sys.stderr)
        return 2
    assert child.stdin is not None and child.stdout is not None
    child_out = child.stdout

    def down() -> None:
        for line in child_out:
            _note(line, observer.server_sent)
            if after_each is not None:
                after_each()
            stdout.write(line)
            stdout.flush()

    pump = threading.Thread(target=down, name="mcp-relay", daemon=True)
    pump.start()
    try:
        for line in stdin:
            _note(line, observer.client_sent)
            if after_each is not None:
                after_each()
            child.stdin.write(line)
            child.stdin.flush()
    except (BrokenPipeError, OSError):
        pass  # the server is gone; its end is what gets recorded
    finally:
        with contextlib.suppress(OSError):
            child.stdin.close()
        try:
            child.wait(_EXIT_SECONDS)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        pump.join(_EXIT_SECONDS)
        if after_each is not None:
            after_each()
    return 0


def _note(line: bytes, sink: Any) -> None:
    try:
        message = json.loads(line)
    except ValueError:
        return
    if isinstance(message, dict):
        sink(message)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m harness.mcp.replay", description=__doc__)
    parser.add_argument("cassette", type=Path)
    parser.add_argument("--server", required=True, help="the server's name in the cassette")
    parser.add_argument("--misses", type=Path, help="append replay misses here (JSON lines)")
    parser.add_argument("--calls", type=Path, help="append NAME here per tools/call answered")
    parser.add_argument("--record", action="store_true", help="relay to COMMAND and record")
    parser.add_argument(
        "--live", action="store_true", help="relay to COMMAND, comparing its answers"
    )
    parser.add_argument("--changes", type=Path, help="append live answer changes here")
    given = list(sys.argv[1:] if argv is None else argv)
    # Everything after ``--`` is the real server's command, options and all.
    split = given.index("--") if "--" in given else len(given)
    args = parser.parse_args(given[:split])
    command = given[split + 1 :]
    if (args.record or args.live) and not command:
        parser.error("--record and --live need the real server's command after --")
    if args.record:
        return record_stdio(
            args.cassette, args.server, command, sys.stdin.buffer, sys.stdout.buffer
        )
    from harness.core.errors import CassetteError

    try:
        if args.live:
            return live_stdio(
                args.cassette,
                args.server,
                command,
                sys.stdin.buffer,
                sys.stdout.buffer,
                changes=args.changes,
                calls=args.calls,
            )
        return replay_stdio(
            args.cassette,
            args.server,
            args.misses,
            sys.stdin.buffer,
            sys.stdout.buffer,
            calls=args.calls,
        )
    except CassetteError as exc:
        print(str(exc), file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
